import {
  AuthenticationError,
  SourceUnreachableError,
  isConnectorAuthError,
  type ConnectorAuthError,
} from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { HttpClient, describeUrl, explainTlsFailure, type TlsSettings } from '../network/index.js';
import type { SecretRegistry } from '../secrets/index.js';
import { realTimers, type AuthContext, type Timers } from './auth-method.js';
import type { DpopProver } from './dpop.js';
import { tokenEndpointTls } from './identity-service-http.js';

/**
 * One token endpoint: an OAuth 2.0 token endpoint (RFC 6749 §3.2, a POST of a grant), or a cloud
 * metadata service's (a GET: the GCE metadata server, Azure IMDS), which answer with the same
 * `access_token` / `expires_in` fields. Here: the request, the reading of the answer, what each
 * failure means, and the bounded retries.
 *
 * What is retried: 408, 429, 500, 502, 503, 504, the OAuth errors `server_error` and
 * `temporarily_unavailable`, and network failures. What is not: everything that says the credential
 * or the configuration is wrong (`invalid_client`, `invalid_grant`, `unauthorized_client`, …) — asking
 * again would only lock the account sooner. Retries wait with exponential backoff and jitter, or as
 * long as `Retry-After` says; all attempts and waits together stay within a budget derived from
 * `timeout_seconds`, so a token endpoint that never recovers ends the run in bounded time (exit 4).
 */

export interface TokenResponse {
  readonly accessToken: string;
  /** Normalised: "Bearer", or "DPoP" for a token bound to the DPoP key (RFC 9449), asked for with `dpop`. */
  readonly tokenType: 'Bearer' | 'DPoP';
  /** `expires_in` when the server gave a positive number (or a numeric string). */
  readonly expiresInSeconds: number | undefined;
  /** A new refresh token, when the server issued one. */
  readonly refreshToken: string | undefined;
  readonly scope: string | undefined;
}

/** Which configuration key to name for each OAuth error a token endpoint can return. */
export interface OAuthErrorKeys {
  invalid_client: string;
  invalid_grant: string;
  unauthorized_client: string;
  /** A scope the client may not have (default: `other`). */
  invalid_scope?: string;
  /** A resource / audience the server does not know (default: `other`). */
  invalid_target?: string;
  /** Any other refusal (invalid_request, access_denied, an unknown code, a bare 401). */
  other: string;
  /** Codes of other services that answer in the OAuth error form (Azure IMDS: `invalid_resource`). */
  readonly [error: string]: string | undefined;
}


export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff before the 2nd attempt; doubled each time, capped at maxDelayMs; jittered. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** All attempts and waits of one token acquisition together. */
  budgetMs: number;
}

/**
 * Five attempts, 250 ms doubling to at most 4 s, within 80% of timeout_seconds: the probe as a whole
 * has timeout_seconds, and the token endpoint's own, precise error must win the race against the
 * probe's generic deadline.
 */
export function defaultRetryPolicy(timeoutSeconds: number): RetryPolicy {
  return { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 4000, budgetMs: Math.round(timeoutSeconds * 800) };
}

export interface TokenEndpointOptions {
  url: URL;
  /** The configuration key the URL came from: token_url, or service_account_key (its token_uri). */
  urlKey: string;
  /** The credential's description, e.g. "OAuth 2.0 client credentials for client 'x'". */
  credential: string;
  errorKeys: OAuthErrorKeys;
  http: HttpClient;
  log: Logger;
  secrets: SecretRegistry;
  now: () => number;
  retry: RetryPolicy;
  timers?: Timers;
  /** [0, 1); injectable so a test can pin the jitter. */
  random?: () => number;
  /** `POST` (default): an OAuth grant, sent by request(). `GET`: a metadata service, asked by get(). */
  method?: 'POST' | 'GET';
  /** Statuses that are retried (default 408, 429, 500, 502, 503, 504). */
  retryStatuses?: ReadonlySet<number>;
  /**
   * Statuses that are a final refusal naming a key (exit 3), e.g. the GCE server's 404 for an unknown
   * service account; with a hint of its own when the status says more than "check the key".
   */
  refusalStatuses?: Readonly<Record<number, string | { key: string; hint: string }>>;
  /**
   * The form of a token answer: OAuth's `access_token` / `expires_in` (default), or Google's IAM
   * Credentials API (`accessToken` / `expireTime`, RFC 3339), which answers a JSON POST (postJson).
   */
  answer?: 'oauth' | 'iam_credentials';
  /** Checked on every answer before anything else; an error returned is thrown as final (the GCE server's Metadata-Flavor header). */
  checkAnswer?: (response: Response) => ConnectorAuthError | undefined;
  /** The hint when the endpoint cannot be reached at all, after the retries (default: about a token endpoint). */
  unreachableHint?: string;
  /**
   * The TLS material when a client certificate is presented (RFC 8705 client authentication): a
   * connection the server closes is then checked for a refusal of the certificate, named and final.
   */
  clientTls?: TlsSettings;
  /** DPoP (RFC 9449): a proof on every request, the server's nonce followed, `DPoP` tokens accepted. */
  dpop?: DpopProver;
}

/** One attempt's body and headers; built again for each attempt (an assertion is single-use). */
export interface TokenRequest {
  body: URLSearchParams;
  headers: Headers;
}

/** One request to the endpoint, as #attempt sends it. */
interface SendInit {
  method: 'POST' | 'GET';
  headers: Headers;
  body?: string;
}

type Attempt<T = TokenResponse> =
  | { kind: 'token'; token: T }
  | { kind: 'retry'; error: ConnectorAuthError; what: string; retryAfterMs: number | undefined };

/** How a successful answer is read: a token by default; another answer for postForm and get (`json` is the body parsed when it is a JSON object). */
export type ReadAnswer<T> = (json: Record<string, unknown> | undefined, response: Response, text: string) => T;

export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
const RETRY_OAUTH_ERRORS = new Set(['server_error', 'temporarily_unavailable']);

export class TokenEndpoint {
  readonly #o: TokenEndpointOptions;
  readonly #timers: Timers;
  readonly #random: () => number;

  constructor(options: TokenEndpointOptions) {
    this.#o = options;
    this.#timers = options.timers ?? realTimers;
    this.#random = options.random ?? Math.random;
  }

  get url(): URL {
    return this.#o.url;
  }

  /** POSTs the grant until a token arrives, a refusal is final, or the retry budget is spent. */
  request(grantType: string, build: () => Promise<TokenRequest> | TokenRequest): Promise<TokenResponse> {
    // Built again for every send, the DPoP nonce's second one included: a client assertion (RFC 7523)
    // carries a jti the server accepts once.
    const form = async (): Promise<SendInit> => {
      const { body, headers } = await build();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('accept', 'application/json');
      body.set('grant_type', grantType);
      return { method: 'POST', headers, body: body.toString() };
    };
    return this.#run(`grant ${grantType}, `, (remainingMs) => this.#attempt(this.#o.url, form, remainingMs));
  }

  /**
   * POSTs a form whose answer is not a token (RFC 8628's device authorization: a device code to
   * poll with), under the same rules: retries, OAuth errors → the key to fix. `read` reads a 2xx answer.
   */
  postForm<T>(body: URLSearchParams, headers: Headers, read: ReadAnswer<T>): Promise<T> {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    headers.set('accept', 'application/json');
    const init: SendInit = { method: 'POST', headers, body: body.toString() };
    return this.#run('', (remainingMs) => this.#attempt(this.#o.url, () => init, remainingMs, read));
  }

  /** POSTs `body` as JSON (an API that issues tokens, not an OAuth grant), under the same rules. */
  postJson(body: unknown, headers: Headers): Promise<TokenResponse> {
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json');
    const init: SendInit = { method: 'POST', headers, body: JSON.stringify(body) };
    return this.#run('', (remainingMs) => this.#attempt(this.#o.url, () => init, remainingMs));
  }

  /**
   * GETs the endpoint's URL with `query` and `headers` (a metadata service), under the same rules.
   * The answer is a token, or what `read` makes of it (a workload's subject token, for one).
   */
  get(query: URLSearchParams, headers: Headers): Promise<TokenResponse>;
  get<T>(query: URLSearchParams, headers: Headers, read: ReadAnswer<T>): Promise<T>;
  get<T>(query: URLSearchParams, headers: Headers, read?: ReadAnswer<T>): Promise<T | TokenResponse> {
    const url = new URL(this.#o.url);
    for (const [name, value] of query) url.searchParams.set(name, value);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    const init: SendInit = { method: 'GET', headers };
    return this.#run('', (remainingMs) => this.#attempt(url, () => init, remainingMs, read));
  }

  async #run<T = TokenResponse>(what: string, attemptOnce: (remainingMs: number) => Promise<Attempt<T>>): Promise<T> {
    const { now, retry, log } = this.#o;
    const started = now();
    const deadline = started + retry.budgetMs;
    for (let attempt = 1; ; attempt++) {
      log.debug(`${this.#o.credential}: requesting a token from ${this.#target()} (${what}attempt ${attempt})`);
      const outcome = await attemptOnce(Math.max(1, deadline - now()));
      if (outcome.kind === 'token') return outcome.token;

      const elapsed = now() - started;
      const delay = outcome.retryAfterMs ?? this.#backoff(attempt);
      const remaining = deadline - now();
      if (attempt >= retry.maxAttempts || delay >= remaining) {
        const why =
          outcome.retryAfterMs !== undefined && outcome.retryAfterMs >= remaining
            ? `; it asked to retry after ${seconds(outcome.retryAfterMs)}s, beyond the ${seconds(retry.budgetMs)}s budget`
            : '';
        throw this.#exhausted(outcome, attempt, elapsed, why);
      }
      log.warning(
        `${this.#o.credential}: the token endpoint ${this.#target()} ${outcome.what}; ` +
          `retrying in ${seconds(delay)}s (attempt ${attempt + 1} of at most ${retry.maxAttempts})`,
      );
      await this.#timers.sleep(delay);
    }
  }

  async #attempt<T = TokenResponse>(
    url: URL,
    requestFor: () => SendInit | Promise<SendInit>,
    remainingMs: number,
    read: ReadAnswer<T> = (json, response) => this.#readToken(json, response) as T,
  ): Promise<Attempt<T>> {
    const dpop = this.#o.dpop;
    for (let sent = 1; ; sent++) {
      // Outside the try below: what building the request throws (a subject token that cannot be
      // read) is its own failure, not the endpoint's, and is not retried as one.
      const init = await requestFor();
      if (dpop) init.headers.set('dpop', await dpop.proof(init.method, url));
      let response: Response;
      let text: string;
      try {
        response = await this.#o.http.send(
          url,
          // Never redirected: a POST that carries a client secret must go where token_url says, nowhere
          // else, and a metadata service that redirects is not one.
          { ...init, redirect: 'manual', signal: AbortSignal.timeout(remainingMs) },
          { credential: this.#o.credential, urlKey: this.#o.urlKey, clientCertificate: this.#o.clientTls?.clientCertificate },
        );
        text = await response.text().catch(() => '');
      } catch (error) {
        // With TLS 1.3 a server judges the client certificate after the handshake seems done: its
        // refusal arrives as a closed connection, which a look-only handshake tells apart (final, exit 3).
        const tls = this.#o.clientTls;
        const explained = tls ? await explainTlsFailure(error, { url, tls, target: this.#prefix(), timeoutMs: remainingMs }) : error;
        if (explained !== error) throw explained;
        // Timeouts, refused and reset connections may pass; an untrusted certificate will not, nor a
        // host name that does not exist (a temporary DNS failure, EAI_AGAIN, may pass and is retried).
        if (error instanceof SourceUnreachableError && error.code === 'enotfound') throw this.#unresolvable(url, error);
        if (error instanceof SourceUnreachableError) return { kind: 'retry', error, what: `failed (${error.code})`, retryAfterMs: undefined };
        throw error;
      }
      // RFC 9449 §8: a server that wants a nonce says so once; the request goes again with it (built
      // again: a client assertion is good once), at once and without counting as a retry (Okta asks
      // on every first request).
      const nonceChanged = dpop?.learnNonce(url, response.headers) ?? false;
      if (nonceChanged && sent === 1 && (response.status === 400 || response.status === 401) && parseObject(text)?.error === 'use_dpop_nonce') continue;
      return this.#interpret(response, text, read);
    }
  }

  async #interpret<T>(response: Response, text: string, read: ReadAnswer<T>): Promise<Attempt<T>> {
    const status = response.status;
    const refused = this.#o.checkAnswer?.(response);
    if (refused) throw refused;
    const json = parseObject(text);
    if (status >= 200 && status < 300) return { kind: 'token', token: read(json, response, text) };

    const oauthError = typeof json?.error === 'string' ? oauthErrorName(json.error) : undefined;
    if ((this.#o.retryStatuses ?? RETRY_STATUSES).has(status) || (oauthError && RETRY_OAUTH_ERRORS.has(oauthError))) {
      const what = `answered HTTP ${status}${oauthError ? ` ${oauthError}` : ''}`;
      const error = new SourceUnreachableError(`${this.#prefix()} ${what}`, {
        code: `http_${status}`,
        key: this.#o.urlKey,
        hint: `the token endpoint is overloaded or down; try again later, or check '${this.#o.urlKey}'`,
      });
      return { kind: 'retry', error, what, retryAfterMs: retryAfterMs(response.headers.get('retry-after'), this.#o.now()) };
    }
    if (status >= 300 && status < 400) {
      const location = URL.parse(response.headers.get('location') ?? '', this.#o.url);
      throw new SourceUnreachableError(
        `${this.#prefix()} answered a redirect (HTTP ${status}${location ? ` to ${describeUrl(location)}` : ''}); token requests are not redirected`,
        { code: `http_${status}`, key: this.#o.urlKey, hint: `set '${this.#o.urlKey}' to the token endpoint's final address` },
      );
    }
    if (oauthError && status >= 400 && status < 500) throw this.#refusal(oauthError, json!.error_description, status);
    const refusal = this.#o.refusalStatuses?.[status];
    if (refusal !== undefined) {
      // Google's APIs answer `{"error": {"code", "message", "status"}}`: the message is what to show.
      const apiMessage = json?.error !== null && typeof json?.error === 'object' ? (json.error as { message?: unknown }).message : undefined;
      const description = typeof apiMessage === 'string' ? apiMessage : text.trimStart().startsWith('<') ? undefined : text;
      throw this.#refusal(undefined, description, status, typeof refusal === 'string' ? refusal : refusal.key, typeof refusal === 'string' ? undefined : refusal.hint);
    }
    // RFC 6749 §5.2: a 401 is the client's authentication refused (invalid_client), with or without a body saying so.
    if (status === 401) {
      const key = this.#o.errorKeys.invalid_client;
      throw this.#refusal(undefined, undefined, status, key, `${HINTS.invalid_client} '${key}'`);
    }
    if (status === 403) throw this.#refusal(undefined, undefined, status);
    throw new SourceUnreachableError(`${this.#prefix()} answered HTTP ${status}; expected a token`, {
      code: `http_${status}`,
      key: this.#o.urlKey,
      hint: `check that '${this.#o.urlKey}' is the token endpoint of the authorization server`,
    });
  }

  #readToken(json: Record<string, unknown> | undefined, response: Response): TokenResponse {
    if (this.#o.answer === 'iam_credentials') return this.#readIamCredentialsToken(json, response);
    const { secrets } = this.#o;
    // Registered first, before anything below can fail and describe the response.
    for (const field of ['access_token', 'refresh_token', 'id_token'] as const)
      if (typeof json?.[field] === 'string') secrets.register(field, json[field] as string);
    const accessToken = json?.access_token;
    if (typeof accessToken !== 'string' || accessToken.length === 0) {
      const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
      throw new SourceUnreachableError(
        `${this.#prefix()} answered HTTP ${response.status} without an access_token (${json ? 'JSON without the field' : type})`,
        { code: 'token_response_malformed', key: this.#o.urlKey, hint: `check that '${this.#o.urlKey}' is the OAuth 2.0 token endpoint` },
      );
    }
    const tokenType = typeof json!.token_type === 'string' ? json!.token_type : 'Bearer';
    const dpopBound = this.#o.dpop !== undefined && tokenType.toLowerCase() === 'dpop';
    if (tokenType.toLowerCase() !== 'bearer' && !dpopBound) {
      throw new AuthenticationError(
        `${this.#prefix()} issued a '${tokenType.slice(0, 20)}' token; only Bearer tokens (RFC 6750) are supported${tokenType.toLowerCase() === 'dpop' ? ", or DPoP ones with 'dpop' set to true" : ''}`,
        {
          code: 'token_type_unsupported',
          key: tokenType.toLowerCase() === 'dpop' ? 'dpop' : this.#o.errorKeys.other,
          hint: tokenType.toLowerCase() === 'dpop' ? "set 'dpop' to \"true\": the server binds this client's tokens to a DPoP key" : 'configure the client at the authorization server to receive Bearer tokens',
        },
      );
    }
    const expires = typeof json!.expires_in === 'string' ? Number(json!.expires_in) : json!.expires_in;
    const refreshToken = typeof json!.refresh_token === 'string' && json!.refresh_token.length > 0 ? json!.refresh_token : undefined;
    return {
      accessToken,
      tokenType: dpopBound ? 'DPoP' : 'Bearer',
      expiresInSeconds: typeof expires === 'number' && Number.isFinite(expires) && expires > 0 ? expires : undefined,
      refreshToken,
      scope: typeof json!.scope === 'string' ? json!.scope : undefined,
    };
  }

  /** `{"accessToken": "…", "expireTime": "2026-11-24T03:00:00Z"}`: Google's generateAccessToken. */
  #readIamCredentialsToken(json: Record<string, unknown> | undefined, response: Response): TokenResponse {
    const accessToken = json?.accessToken;
    if (typeof accessToken === 'string') this.#o.secrets.register('access_token', accessToken);
    if (typeof accessToken !== 'string' || accessToken.length === 0) {
      throw new SourceUnreachableError(`${this.#prefix()} answered HTTP ${response.status} without an accessToken`, {
        code: 'token_response_malformed',
        key: this.#o.urlKey,
        hint: `check that '${this.#o.urlKey}' names the IAM credentials API`,
      });
    }
    const expiresAt = typeof json!.expireTime === 'string' ? Date.parse(json!.expireTime) : NaN;
    const expiresInSeconds = Number.isFinite(expiresAt) ? Math.floor((expiresAt - this.#o.now()) / 1000) : undefined;
    return { accessToken, tokenType: 'Bearer', expiresInSeconds: expiresInSeconds && expiresInSeconds > 0 ? expiresInSeconds : undefined, refreshToken: undefined, scope: undefined };
  }

  /** A final refusal: exit 3, the OAuth error and its description, and the key to fix. */
  #refusal(error: string | undefined, description: unknown, status: number, statusKey?: string, statusHint?: string): AuthenticationError {
    const keys = this.#o.errorKeys;
    // Own properties only: a server's `"error": "constructor"` is not a key of ours.
    const key = (error !== undefined && error !== 'other' && Object.hasOwn(keys, error) ? keys[error] : undefined) ?? statusKey ?? keys.other;
    const detail = serverDetail(description, this.#o.secrets);
    const what = error ? `${error}${detail}` : `HTTP ${status}${statusKey ? detail : ''}`;
    return new AuthenticationError(`${this.#prefix()} refused the token request: ${what}`, {
      code: error ? `oauth_${error}` : `http_${status}`,
      key,
      hint: statusHint ?? (error !== undefined && Object.hasOwn(HINTS, error) ? `${HINTS[error]} '${key}'` : `check '${key}'`),
    });
  }

  #exhausted(outcome: Extract<Attempt<unknown>, { kind: 'retry' }>, attempts: number, elapsedMs: number, why: string): SourceUnreachableError {
    const last = outcome.error;
    const timedOut = last.code === 'timeout';
    return new SourceUnreachableError(
      `${this.#prefix()} ${outcome.what} on ${attempts} attempt${attempts === 1 ? '' : 's'} over ${seconds(elapsedMs)}s; no token${why}`,
      {
        code: last.code,
        key: timedOut ? 'timeout_seconds' : this.#o.urlKey,
        hint: timedOut
          ? `check that the token endpoint answers at '${this.#o.urlKey}', or raise 'timeout_seconds'`
          : (this.#o.unreachableHint ?? `the token endpoint at '${this.#o.urlKey}' is unavailable; retry later (a larger 'timeout_seconds' allows longer retries)`),
        cause: last,
      },
    );
  }

  /** The host name of the endpoint does not exist: final at once (exit 4), naming the key that holds it. */
  #unresolvable(url: URL, cause: SourceUnreachableError): SourceUnreachableError {
    return new SourceUnreachableError(`${this.#prefix()} failed: host name '${url.hostname}' not found (DNS)`, {
      code: 'enotfound',
      key: this.#o.urlKey,
      hint: `check the host name in '${this.#o.urlKey}'`,
      cause,
    });
  }

  /** Exponential backoff with "equal jitter": half the step is fixed, half random, so callers spread out. */
  #backoff(attempt: number): number {
    const { initialDelayMs, maxDelayMs } = this.#o.retry;
    const step = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
    return Math.round(step / 2 + this.#random() * (step / 2));
  }

  #target(): string {
    return describeUrl(this.#o.url);
  }

  #prefix(): string {
    return `${this.#o.credential}: ${this.#o.method ?? 'POST'} ${this.#target()}`;
  }

  close(): Promise<void> {
    return this.#o.http.close();
  }
}

/** An OAuth error code is a short token (RFC 6749 §5.2); anything else is not echoed into a message. */
export function oauthErrorName(error: string): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : 'unrecognised_error';
}

/** A server's error description for a message: ` (text)`, one line, bounded, redacted in case it echoes a value; '' when there is none. */
export function serverDetail(description: unknown, secrets: SecretRegistry): string {
  return typeof description === 'string' && description.trim() !== '' ? ` (${secrets.redact(description.replace(/\s+/g, ' ').trim()).slice(0, 200)})` : '';
}

const HINTS: Record<string, string> = {
  invalid_client: 'the authorization server did not accept the client authentication; check',
  invalid_grant: 'the grant is invalid, expired or revoked; check',
  unauthorized_client: 'this client may not use this grant type; check',
};

/** `text` as a JSON object, or undefined when it is not one. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP date. Undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month in letters; anything else (e.g. "-4") is not one.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const seconds = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);

/** For messages that must say what failed without depending on the error's class. */
export function describeError(error: unknown): string {
  if (isConnectorAuthError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * A TokenEndpoint wired from a method's context, as every token method needs it: TLS for the token
 * URL, the logger, the secret registry, the clock and a retry budget inside timeout_seconds. The
 * method says only where the endpoint is and which key each OAuth error points to.
 */
export async function tokenEndpointFor(
  context: AuthContext,
  options: Pick<TokenEndpointOptions, 'url' | 'urlKey' | 'credential' | 'errorKeys'> &
    Partial<Pick<TokenEndpointOptions, 'method' | 'retryStatuses' | 'refusalStatuses' | 'checkAnswer' | 'unreachableHint' | 'answer' | 'dpop'>> & {
      /** Present the `tls_client_*` certificate (RFC 8705 client authentication). */
      presentClientCertificate?: boolean;
    },
): Promise<TokenEndpoint> {
  const { presentClientCertificate, ...rest } = options;
  const tls = await tokenEndpointTls(context.raw, context, { clientCertificate: presentClientCertificate === true });
  return new TokenEndpoint({
    ...rest,
    http: new HttpClient({ tls, timeoutSeconds: context.common.timeout_seconds }),
    ...(tls.clientCertificate ? { clientTls: tls } : {}),
    log: context.log,
    secrets: context.secrets,
    now: context.now,
    ...(context.timers ? { timers: context.timers } : {}),
    retry: defaultRetryPolicy(context.common.timeout_seconds),
  });
}
