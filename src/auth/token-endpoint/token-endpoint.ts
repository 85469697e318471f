import { AuthenticationError, SourceUnreachableError, type ConnectorAuthError } from '../../errors/index.js';
import { HttpClient, describeUrl, explainTlsFailure } from '../../network/index.js';
import { realTimers, type AuthContext, type Timers } from '../auth-method.js';
import { tokenEndpointTls } from './identity-service-http.js';
import {
  REFUSAL_HINTS,
  oauthErrorName,
  parseObject,
  readTokenAnswer,
  retryAfterMs,
  serverDetail,
} from './token-answer.js';
import {
  RETRY_STATUSES,
  defaultRetryPolicy,
  type ReadAnswer,
  type TokenEndpointOptions,
  type TokenRequest,
  type TokenResponse,
} from './token-endpoint-options.js';

export { RETRY_STATUSES, defaultRetryPolicy } from './token-endpoint-options.js';
export type {
  OAuthErrorKeys,
  ReadAnswer,
  RetryPolicy,
  TokenEndpointOptions,
  TokenRequest,
  TokenResponse,
} from './token-endpoint-options.js';
export { describeError, oauthErrorName, parseObject, retryAfterMs, serverDetail } from './token-answer.js';

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

/** One request to the endpoint, as #attempt sends it. */
interface SendInit {
  method: 'POST' | 'GET';
  headers: Headers;
  body?: string;
}

type Attempt<T = TokenResponse> =
  | { kind: 'token'; token: T }
  | { kind: 'retry'; error: ConnectorAuthError; what: string; retryAfterMs: number | undefined };

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
    read: ReadAnswer<T> = (json, response) =>
      readTokenAnswer(json, response, { ...this.#o, prefix: this.#prefix() }) as T,
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
          {
            credential: this.#o.credential,
            urlKey: this.#o.urlKey,
            clientCertificate: this.#o.clientTls?.clientCertificate,
          },
        );
        text = await response.text().catch(() => '');
      } catch (error) {
        // With TLS 1.3 a server judges the client certificate after the handshake seems done: its
        // refusal arrives as a closed connection, which a look-only handshake tells apart (final, exit 3).
        const tls = this.#o.clientTls;
        const explained = tls
          ? await explainTlsFailure(error, { url, tls, target: this.#prefix(), timeoutMs: remainingMs })
          : error;
        if (explained !== error) throw explained;
        // Timeouts, refused and reset connections may pass; an untrusted certificate will not, nor a
        // host name that does not exist (a temporary DNS failure, EAI_AGAIN, may pass and is retried).
        if (error instanceof SourceUnreachableError && error.code === 'enotfound') throw this.#unresolvable(url, error);
        if (error instanceof SourceUnreachableError)
          return { kind: 'retry', error, what: `failed (${error.code})`, retryAfterMs: undefined };
        throw error;
      }
      // RFC 9449 §8: a server that wants a nonce says so once; the request goes again with it (built
      // again: a client assertion is good once), at once and without counting as a retry (Okta asks
      // on every first request).
      const nonceChanged = dpop?.learnNonce(url, response.headers) ?? false;
      if (
        nonceChanged &&
        sent === 1 &&
        (response.status === 400 || response.status === 401) &&
        parseObject(text)?.error === 'use_dpop_nonce'
      )
        continue;
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
      return {
        kind: 'retry',
        error,
        what,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), this.#o.now()),
      };
    }
    if (status >= 300 && status < 400) {
      const location = URL.parse(response.headers.get('location') ?? '', this.#o.url);
      throw new SourceUnreachableError(
        `${this.#prefix()} answered a redirect (HTTP ${status}${location ? ` to ${describeUrl(location)}` : ''}); token requests are not redirected`,
        {
          code: `http_${status}`,
          key: this.#o.urlKey,
          hint: `set '${this.#o.urlKey}' to the token endpoint's final address`,
        },
      );
    }
    if (oauthError && status >= 400 && status < 500) throw this.#refusal(oauthError, json!.error_description, status);
    const refusal = this.#o.refusalStatuses?.[status];
    if (refusal !== undefined) {
      // Google's APIs answer `{"error": {"code", "message", "status"}}`: the message is what to show.
      const apiMessage =
        json?.error !== null && typeof json?.error === 'object'
          ? (json.error as { message?: unknown }).message
          : undefined;
      const description =
        typeof apiMessage === 'string' ? apiMessage : text.trimStart().startsWith('<') ? undefined : text;
      throw this.#refusal(
        undefined,
        description,
        status,
        typeof refusal === 'string' ? refusal : refusal.key,
        typeof refusal === 'string' ? undefined : refusal.hint,
      );
    }
    // RFC 6749 §5.2: a 401 is the client's authentication refused (invalid_client), with or without a body saying so.
    if (status === 401) {
      const key = this.#o.errorKeys.invalid_client;
      throw this.#refusal(undefined, undefined, status, key, `${REFUSAL_HINTS.invalid_client} '${key}'`);
    }
    if (status === 403) throw this.#refusal(undefined, undefined, status);
    throw new SourceUnreachableError(`${this.#prefix()} answered HTTP ${status}; expected a token`, {
      code: `http_${status}`,
      key: this.#o.urlKey,
      hint: `check that '${this.#o.urlKey}' is the token endpoint of the authorization server`,
    });
  }

  /** A final refusal: exit 3, the OAuth error and its description, and the key to fix. */
  #refusal(
    error: string | undefined,
    description: unknown,
    status: number,
    statusKey?: string,
    statusHint?: string,
  ): AuthenticationError {
    const keys = this.#o.errorKeys;
    // Own properties only: a server's `"error": "constructor"` is not a key of ours.
    const key =
      (error !== undefined && error !== 'other' && Object.hasOwn(keys, error) ? keys[error] : undefined) ??
      statusKey ??
      keys.other;
    const detail = serverDetail(description, this.#o.secrets);
    const what = error ? `${error}${detail}` : `HTTP ${status}${statusKey ? detail : ''}`;
    return new AuthenticationError(`${this.#prefix()} refused the token request: ${what}`, {
      code: error ? `oauth_${error}` : `http_${status}`,
      key,
      hint:
        statusHint ??
        (error !== undefined && Object.hasOwn(REFUSAL_HINTS, error)
          ? `${REFUSAL_HINTS[error]} '${key}'`
          : `check '${key}'`),
    });
  }

  #exhausted(
    outcome: Extract<Attempt<unknown>, { kind: 'retry' }>,
    attempts: number,
    elapsedMs: number,
    why: string,
  ): SourceUnreachableError {
    const last = outcome.error;
    const timedOut = last.code === 'timeout';
    return new SourceUnreachableError(
      `${this.#prefix()} ${outcome.what} on ${attempts} attempt${attempts === 1 ? '' : 's'} over ${seconds(elapsedMs)}s; no token${why}`,
      {
        code: last.code,
        key: timedOut ? 'timeout_seconds' : this.#o.urlKey,
        hint: timedOut
          ? `check that the token endpoint answers at '${this.#o.urlKey}', or raise 'timeout_seconds'`
          : (this.#o.unreachableHint ??
            `the token endpoint at '${this.#o.urlKey}' is unavailable; retry later (a larger 'timeout_seconds' allows longer retries)`),
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

const seconds = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);

/**
 * A TokenEndpoint wired from a method's context, as every token method needs it: TLS for the token
 * URL, the logger, the secret registry, the clock and a retry budget inside timeout_seconds. The
 * method says only where the endpoint is and which key each OAuth error points to.
 */
export async function tokenEndpointFor(
  context: AuthContext,
  options: Pick<TokenEndpointOptions, 'url' | 'urlKey' | 'credential' | 'errorKeys'> &
    Partial<
      Pick<
        TokenEndpointOptions,
        'method' | 'retryStatuses' | 'refusalStatuses' | 'checkAnswer' | 'unreachableHint' | 'answer' | 'dpop'
      >
    > & {
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
