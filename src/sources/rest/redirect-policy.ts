import type { AnswerHead } from '../../auth/index.js';
import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl, HeaderList } from '../../network/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * The REST source's redirect and credential-scoping policy. The source follows redirects itself,
 * hop by hop, rather than letting the HTTP client do it: fetch strips only Authorization, Cookie
 * and Proxy-Authorization on a cross-origin hop, so an API key header, a SigV4 session token or a
 * DPoP proof would follow a redirect to a third party (or from https to http). The rules, as fetch
 * and browsers apply them to Authorization:
 *
 * - the method's credential goes to base_url's origin only, on every hop (`carriesCredential`);
 * - the caller's own Authorization, Cookie or Proxy-Authorization leaves with the first change of
 *   origin, for the rest of the chain;
 * - 303, and 301/302 after a POST, go on as a GET without the body or its headers;
 * - at most 20 redirects; a Location that is not http(s) ends the chain where it is;
 * - a hop off base_url's origin carries no credential the server copied into its Location
 *   (`leaveOriginSafely`).
 */

/** Statuses that send the request on to their Location. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** As fetch allows. */
export const MAX_REDIRECTS = 20;
/** Credentials a caller may set on a request itself: not sent on past a redirect to another origin. */
const CALLER_CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** What a request loses with its body when a redirect turns it into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** One request of a chain: where it goes, how, and what it has lost on the way. */
export interface Hop<Body> {
  url: URL;
  method: string;
  body: Body | undefined;
  drop: { body: boolean; callerCredentials: boolean };
}

export interface RedirectScope {
  /** The API's base URL: its origin is the only one the credential goes to. */
  baseUrl: URL;
  /** The credential's description, for messages. */
  credential: string;
  /** Every secret read so far: a hop off base_url's origin must carry none of them. */
  secrets: SecretRegistry;
  log: { debug(message: string): void };
}

export class RedirectPolicy {
  readonly #scope: RedirectScope;

  constructor(scope: RedirectScope) {
    this.#scope = scope;
  }

  /** The first hop of a request. */
  start<Body>(url: URL, method: string, body: Body | undefined): Hop<Body> {
    return { url, method, body, drop: { body: false, callerCredentials: false } };
  }

  /** Whether the method's credential goes on a request to `url`: on base_url's origin only. */
  carriesCredential(url: URL): boolean {
    return url.origin === this.#scope.baseUrl.origin;
  }

  /** A hop's headers: the caller's, `accept: application/json` unless they chose, less what the chain dropped. */
  headers(callerHeaders: HeadersInit | undefined, hop: Hop<unknown>): Headers {
    const headers = new HeaderList(callerHeaders);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    if (hop.drop.body) for (const name of BODY_HEADERS) headers.delete(name);
    if (hop.drop.callerCredentials) for (const name of CALLER_CREDENTIAL_HEADERS) headers.delete(name);
    return headers;
  }

  /**
   * Where an answer sends the request: its Location when it is a redirect to http(s) and the caller
   * did not ask for `redirect: 'manual'`; undefined when the chain ends with this answer.
   */
  target(answer: AnswerHead, hop: Hop<unknown>, manual: boolean) {
    const location = REDIRECTS.has(answer.status) && !manual ? answer.headers.get('location') : null;
    const next = location === null ? null : URL.parse(location, hop.url);
    return next && (next.protocol === 'https:' || next.protocol === 'http:') ? next : undefined;
  }

  /** Throws once a chain has been redirected `MAX_REDIRECTS` times (`hops` redirects followed so far). */
  checkLength(hops: number, hop: Hop<unknown>): void {
    if (hops < MAX_REDIRECTS) return;
    throw new SourceUnreachableError(
      `${this.#scope.credential}: ${hop.method} ${describeUrl(hop.url)} redirected more than ${MAX_REDIRECTS} times`,
      { code: 'too_many_redirects', key: 'base_url', hint: "check 'base_url': the API redirects in a loop" },
    );
  }

  /** The hop a redirect with `status` to `next` leads to, from `hop`, in a chain that began at `first`. */
  follow<Body>(hop: Hop<Body>, status: number, next: URL, first: URL): Hop<Body> {
    let { method, body } = hop;
    const drop = { ...hop.drop };
    // 303, and 301/302 after a POST, go on as a GET without the body (the fetch standard's rule).
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      drop.body = true;
    }
    // The caller's own Authorization or Cookie leaves with the first change of origin, for the
    // rest of the chain, as fetch drops them (the method's credential follows base_url's origin).
    if (next.origin !== first.origin) drop.callerCredentials = true;
    // Nor does a credential the server copied into the Location (a query-string API key).
    const url = this.carriesCredential(next)
      ? next
      : leaveOriginSafely(
          next,
          { method, url: hop.url, credential: this.#scope.credential },
          this.#scope.secrets,
          this.#scope.log,
        );
    return { url, method, body, drop };
  }
}

/**
 * Where a redirect away from base_url's origin may go. The source applies its credential on
 * base_url's origin only, but a server can put it in the Location itself: an API key passed in the
 * query string (`api_key_location=query`) is copied by a redirect that keeps the query. Query
 * parameters that hold a registered secret are dropped from such a hop (the rest of the query is
 * kept exactly as written: a presigned target's signature covers its encoding); a secret anywhere
 * else in the URL (its path, its user name) refuses the redirect.
 */
export function leaveOriginSafely(
  next: URL,
  from: { method: string; url: URL; credential: string },
  registry: SecretRegistry,
  log: { debug(m: string): void },
): URL {
  const safe = new URL(next);
  safe.hash = '';
  if (safe.search.length > 1) {
    const pieces = safe.search.slice(1).split('&');
    const kept = pieces.filter((piece) => !registry.contains(decodeQueryPiece(piece)) && !registry.contains(piece));
    if (kept.length < pieces.length) {
      safe.search = kept.length > 0 ? `?${kept.join('&')}` : '';
      log.debug(
        `${from.credential}: ${pieces.length - kept.length} query parameter(s) holding a credential dropped from the redirect to ${safe.origin}`,
      );
    }
  }
  const labels = registry.labelsIn(safe.href);
  if (labels.length > 0) {
    const key = labels[0]!;
    throw new SourceUnreachableError(
      `${from.credential}: ${from.method} ${describeUrl(from.url)} redirected to ${safe.origin} with the value of '${key}' in the URL; not followed`,
      {
        code: 'redirect_carries_credential',
        key,
        hint: `the source sent a credential to another host in a redirect: check 'base_url', and rotate '${key}' if the redirect is not yours`,
      },
    );
  }
  return safe;
}

/** A query piece `name=value` as the server will read it: `+` a space, %-escapes decoded. */
function decodeQueryPiece(piece: string): string {
  const plus = piece.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}
