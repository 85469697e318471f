import { z } from 'zod';
import { AWS_METHODS, isAwsCredential, type Credential } from '../auth/index.js';
import { keys } from '../config/index.js';
import { ConfigurationError, SourceUnreachableError } from '../errors/index.js';
import {
  HttpClient,
  describeUrl,
  explainTlsFailure,
  isLoopbackHost,
  prepareSshTunnel,
  readBodyStart,
  readTlsSettings,
  sshTunnelKeys,
  urlDestination,
  type HttpReply,
  type HttpRequestInit,
} from '../network/index.js';
import { awsRequestSigner, type RequestSigner } from './rest/aws-request-signing.js';
import { leaveOriginSafely } from './rest/redirect-policy.js';
import { notJsonError, statusError } from './rest/rest-status.js';
import { defineSource, type ConnectedSource, type ProbeResult } from './source-definition.js';

export { awsRefusalMessage, statusError } from './rest/rest-status.js';

/**
 * A REST or HTTP API. `fetch` is what a connector's update() uses: paths join `base_url`, the
 * credential is applied, `timeout_seconds` bounds each request, and a 401 triggers one retry with a
 * fresh credential where the method can refresh (OAuth). The probe is one GET of `probe_path`.
 *
 * With `ssh_tunnel_host`, connections to base_url's origin go through an SSH tunnel (an API reached
 * only through a bastion): the HTTP client dials the tunnel's listener, and the Host header, SNI and
 * certificate check stay base_url's host. Other origins (a token endpoint, an absolute URL) are
 * reached directly.
 *
 * With an AWS method (an access key, a role, the instance's or the task's own), every request to
 * base_url's origin is signed with SigV4 for `aws_service` in `aws_region` (aws-request-signing.ts):
 * an API behind IAM, such as API Gateway, OpenSearch or a Lambda function URL.
 */

export interface RestSource extends ConnectedSource {
  readonly baseUrl: URL;
  /** Like the global fetch, but authenticated and bounded. Statuses are returned, not thrown. */
  fetch(pathOrUrl: string | URL, init?: RestRequestInit): Promise<Response>;
  /**
   * Like fetch, for JSON APIs read a page at a time: the same credential, TLS and timeout, but a
   * lean reply whose body is read whole with text(), without WHATWG streams. The typed clients
   * (connector-auth/pipeline-api, /webhooks-api) use it.
   */
  request(pathOrUrl: string | URL, init?: RestRequestInit): Promise<HttpReply>;
  /**
   * GET (or `init.method`) and parse JSON; a non-2xx status, a body cut short or too slow, and a
   * body that is not JSON throw classified errors (exit 3 or 4) naming the URL.
   */
  json<T = unknown>(pathOrUrl: string | URL, init?: RestRequestInit): Promise<T>;
}

export interface RestRequestInit extends Omit<HttpRequestInit, 'headers'> {
  headers?: HeadersInit;
}

const restKeys = z.object({
  base_url: keys.url(),
  probe_path: keys.textWithDefault(''),
  probe_expect_status: keys.statusList([200]),
  aws_service: keys.optionalText(),
  ...sshTunnelKeys.shape,
});

/** Methods that put a credential on HTTP requests; REST accepts all of them. */
export const HTTP_AUTH_METHODS = [
  'basic',
  'bearer',
  'api_key',
  'oauth2_client_credentials',
  'oauth2_refresh_token',
  'service_account_key',
  'gcp_metadata',
  'gcp_workload_identity',
  'azure_managed_identity',
  'mtls',
  ...AWS_METHODS,
] as const;

export default defineSource({
  name: 'rest',
  summary: 'REST or HTTP API: credentials on every request, probe = one GET of probe_path',
  keys: restKeys,
  acceptsMethods: HTTP_AUTH_METHODS,
  async connect(k, credential, context): Promise<RestSource> {
    const baseUrl = withTrailingSlash(k.base_url);
    guardPlainHttp(baseUrl, credential, context.common.allow_plain_http, context.log);
    const tls = await readTlsSettings(context.raw, { log: context.log, now: context.now, secrets: context.secrets });
    if (!tls.verify)
      context.log.warning(
        `TLS verification is OFF for ${baseUrl.host} (tls_skip_verify=true): anyone on the path can read the credential`,
      );
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(k, urlDestination(baseUrl, 'base_url'), {
      timeoutSeconds,
      log: context.log,
      secrets: context.secrets,
    });
    const via = tunnel ? ` via ${tunnel.bastion}` : '';
    const http = new HttpClient({ tls, timeoutSeconds, route: tunnel });
    // An AWS method's credential signs each request itself (SigV4), rather than adding a header.
    const signer: RequestSigner | undefined = isAwsCredential(credential)
      ? await awsRequestSigner(credential, baseUrl, k.aws_service, context.now)
      : undefined;
    if (signer)
      context.log.debug(
        `${credential.description}: requests to ${baseUrl.origin} are signed with ${signer.description}`,
      );

    /**
     * One authenticated request: the credential goes to base_url's origin only. Redirects are
     * followed here, hop by hop, rather than by the HTTP client: undici strips only Authorization,
     * Cookie and Proxy-Authorization on a cross-origin hop, so an API key header, a SigV4 session
     * token or a DPoP proof would follow a redirect to a third party (or from https to http). Each
     * hop gets the credential again only when it is on base_url's origin, as browsers treat
     * Authorization. A 401 gets one retry, with what the answer asked for (a DPoP nonce) or else
     * with a fresh credential where the method can refresh; a TLS failure is explained
     * (explainTlsFailure) whichever call made it. `transmit` is the HTTP client's fetch-shaped
     * send() or its lean request().
     */
    const authorized = async <R extends { status: number; headers: { get(name: string): string | null } }>(
      pathOrUrl: string | URL,
      init: RestRequestInit,
      transmit: (url: URL, init: HttpRequestInit) => Promise<R>,
      drain: (reply: R) => Promise<unknown>,
    ): Promise<R> => {
      /** The request last sent, whose credential a 401 refused. */
      let sent: { method: string; url: URL; headers: Headers } | undefined;
      const hop = async (
        url: URL,
        method: string,
        body: RestRequestInit['body'],
        drop: { body: boolean; callerCredentials: boolean },
      ): Promise<R> => {
        const headers = new Headers(init.headers);
        if (!headers.has('accept')) headers.set('accept', 'application/json');
        if (drop.body) for (const name of BODY_HEADERS) headers.delete(name);
        if (drop.callerCredentials) for (const name of CALLER_CREDENTIAL_HEADERS) headers.delete(name);
        const request = { method, url: new URL(url), headers };
        sent = request;
        const sameOrigin = url.origin === baseUrl.origin;
        if (sameOrigin) await (signer ? signer.sign(request, body) : credential.authorize(request));
        try {
          const reply = await transmit(request.url, {
            ...init,
            method,
            body: body ?? null,
            headers,
            redirect: 'manual',
          });
          if (sameOrigin) credential.observeAnswer?.(request.url, reply.headers);
          return reply;
        } catch (error) {
          // A connection the tunnel broke is explained by the tunnel (the bastion refused the channel).
          // Otherwise name the untrusted server's certificate, or find the client-certificate alert
          // behind a closed connection: in update() as in the probe, since certificates change mid-run too.
          const target = `${credential.description}: ${request.method} ${describeUrl(request.url)}`;
          throw (
            tunnel?.takeFailure() ??
            (await explainTlsFailure(error, {
              url: request.url,
              tls,
              target,
              timeoutMs: timeoutSeconds * 1000,
              route: tunnel,
            }))
          );
        }
      };
      /** The request and the redirects it leads to (at most 20, as fetch follows), as fetch follows them. */
      const follow = async (): Promise<{ reply: R; url: URL }> => {
        let url = resolveUrl(baseUrl, pathOrUrl);
        let method = init.method ?? 'GET';
        let body = init.body;
        const first = url;
        const drop = { body: false, callerCredentials: false };
        for (let hops = 0; ; hops++) {
          const reply = await hop(url, method, body, drop);
          const location =
            REDIRECTS.has(reply.status) && init.redirect !== 'manual' ? reply.headers.get('location') : null;
          const next = location === null ? null : URL.parse(location, url);
          if (!next || (next.protocol !== 'https:' && next.protocol !== 'http:')) return { reply, url };
          if (hops === MAX_REDIRECTS)
            throw new SourceUnreachableError(
              `${credential.description}: ${method} ${describeUrl(url)} redirected more than ${MAX_REDIRECTS} times`,
              {
                code: 'too_many_redirects',
                key: 'base_url',
                hint: "check 'base_url': the API redirects in a loop",
              },
            );
          await drain(reply);
          // 303, and 301/302 after a POST, go on as a GET without the body (the fetch standard's rule).
          if (reply.status === 303 || ((reply.status === 301 || reply.status === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            drop.body = true;
          }
          // The caller's own Authorization or Cookie leaves with the first change of origin, for the
          // rest of the chain, as fetch drops them (the method's credential follows base_url above).
          if (next.origin !== first.origin) drop.callerCredentials = true;
          // Nor does a credential the server copied into the Location (a query-string API key).
          url =
            next.origin === baseUrl.origin
              ? next
              : leaveOriginSafely(
                  next,
                  { method, url, credential: credential.description },
                  context.secrets,
                  context.log,
                );
        }
      };
      const answer = await follow();
      // One retry of a 401 from base_url's origin: with what the answer asked for (a DPoP nonce),
      // else with a fresh credential where the method can refresh.
      const retry =
        answer.reply.status === 401 &&
        answer.url.origin === baseUrl.origin &&
        (credential.answersChallenge?.(answer.url, answer.reply.headers) ||
          (credential.invalidate !== undefined && (await credential.invalidate(sent))));
      if (!retry) return answer.reply;
      // Read the (small) 401 body to its end so the retry reuses the connection.
      await drain(answer.reply);
      return (await follow()).reply;
    };
    const requestContext = {
      credential: credential.description,
      urlKey: 'base_url',
      clientCertificate: tls.clientCertificate,
    };
    const send = (pathOrUrl: string | URL, init: RestRequestInit = {}): Promise<Response> =>
      authorized(
        pathOrUrl,
        init,
        (url, i) => http.send(url, i, requestContext),
        (r) => readBodyStart(r, PROBE_BODY_LIMIT),
      );
    const request = (pathOrUrl: string | URL, init: RestRequestInit = {}): Promise<HttpReply> =>
      authorized(
        pathOrUrl,
        init,
        (url, i) => http.request(url, i, requestContext),
        (r) => r.discard(),
      );

    const probe = async (): Promise<ProbeResult> => {
      // The HTTP client's code is loaded before the clock starts: the time reported is the probe's.
      http.prepare(true);
      const started = performance.now();
      await credential.prepare?.();
      const url = resolveUrl(baseUrl, k.probe_path);
      const target = `GET ${describeUrl(url)}${via}`;
      const response = await send(url);
      if (k.probe_expect_status.includes(response.status)) {
        // Read a small body to its end rather than cancel it: undici drops a connection whose body
        // is cancelled while still arriving, and update() would pay for a new TLS handshake.
        await readBodyStart(response, PROBE_BODY_LIMIT);
        return { target, outcome: `HTTP ${response.status}`, elapsedMs: performance.now() - started };
      }
      // nginx answers a missing or refused client certificate with a 400 page, AWS a refused
      // signature or permission with a 403 that says which: read its start.
      const readsBody = response.status === 400 || (signer !== undefined && response.status === 403);
      const body = readsBody ? await readBodyStart(response) : (await response.body?.cancel(), '');
      throw statusError(response, `${credential.description}: ${target}`, credential, k.probe_expect_status, {
        body,
        tls,
        quoteService: signer !== undefined,
      });
    };

    return {
      baseUrl,
      fetch: send,
      request,
      async json<T>(pathOrUrl: string | URL, init?: RestRequestInit): Promise<T> {
        const response = await send(pathOrUrl, init);
        const target = `${credential.description}: ${init?.method ?? 'GET'} ${describeUrl(resolveUrl(baseUrl, pathOrUrl))}`;
        if (!response.ok) {
          const body =
            signer !== undefined && response.status === 403
              ? await readBodyStart(response)
              : (await response.body?.cancel(), '');
          throw statusError(response, target, credential, [200], {
            body,
            quoteService: signer !== undefined,
            data: true,
          });
        }
        // A reset or a pause past timeout_seconds while the body arrives is classified by the HTTP
        // client (exit 4, naming the URL), as it is before the headers.
        const text = await response.text();
        try {
          return JSON.parse(text) as T;
        } catch {
          throw notJsonError(response, target);
        }
      },
      probe,
      close: async () => {
        await credential.close?.();
        await http.close();
        await tunnel?.close();
      },
    };
  },
});

/** Statuses that send the request on to their Location. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** As fetch allows. */
const MAX_REDIRECTS = 20;
/** Credentials a caller may set on a request itself: not sent on past a redirect to another origin. */
const CALLER_CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** What a request loses with its body when a redirect turns it into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** Bodies up to this size are read to the end by the probe, keeping the connection for reuse. */
const PROBE_BODY_LIMIT = 64 * 1024;

/**
 * "https://x/api" + "items" must give "https://x/api/items"; WHATWG resolution would drop "api".
 * A path is therefore joined below base_url, leading slashes (and backslashes, which WHATWG reads
 * as slashes) dropped; an absolute URL (`scheme://…`) is kept. The `./` keeps a colon in the first
 * segment a path (Google's `values:batchGet`, not a scheme `values:`) and a `//host` or `http:/host`
 * on base_url's origin. (A `..` segment climbs out of base_url's path, as in any URL; never off its origin.)
 */
export function resolveUrl(baseUrl: URL, pathOrUrl: string | URL): URL {
  if (pathOrUrl instanceof URL) return new URL(pathOrUrl);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathOrUrl)) return new URL(pathOrUrl);
  return new URL(`./${pathOrUrl.replace(/^[/\\]+/, '')}`, baseUrl);
}

function withTrailingSlash(url: URL): URL {
  const copy = new URL(url);
  if (!copy.pathname.endsWith('/')) copy.pathname += '/';
  return copy;
}

function guardPlainHttp(url: URL, credential: Credential, allowed: boolean, log: { warning(m: string): void }): void {
  if (url.protocol !== 'http:' || !credential.sendsSecret || isLoopbackHost(url.hostname)) return;
  if (!allowed) {
    throw new ConfigurationError(
      `refusing to send the ${credential.description} over plain http:// to ${url.host}: anyone on the network could read it`,
      {
        code: 'plain_http_refused',
        key: 'base_url',
        hint: "use https:// in 'base_url', or set 'allow_plain_http' to \"true\" if you must",
      },
    );
  }
  log.warning(`sending the ${credential.description} over plain http:// to ${url.host} (allow_plain_http=true)`);
}
