import { HttpClient } from '../../network/index.js';
import type { AuthContext } from '../auth-method.js';
import { tokenEndpointTls } from './identity-service-http.js';
import { readAnswer } from './read-answer.js';
import { defaultRetryPolicy, withDpopNonce, withRetries, type Attempt } from './retry-policy.js';
import { readOAuthToken } from './token-answer.js';
import {
  messagePrefix,
  type ReadAnswer,
  type TokenEndpointOptions,
  type TokenRequest,
  type TokenResponse,
} from './token-endpoint-options.js';
import { formInit, getInit, grantForm, jsonInit, sendTokenRequest, type SendInit } from './token-request.js';

/**
 * One token endpoint: an OAuth 2.0 token endpoint (RFC 6749 §3.2, a POST of a grant), or a cloud
 * metadata service's (a GET: the GCE metadata server, Azure IMDS), which answer with the same
 * `access_token` / `expires_in` fields. It puts three pieces together: the request (token-request.ts),
 * the reading of the answer (read-answer.ts, token-answer.ts, token-refusal.ts) and the retry policy
 * (retry-policy.ts), each given its own part of the options.
 */
export class TokenEndpoint {
  readonly #o: TokenEndpointOptions;

  constructor(options: TokenEndpointOptions) {
    this.#o = options;
  }

  get url(): URL {
    return this.#o.url;
  }

  /** POSTs the grant until a token arrives, a refusal is final, or the retry budget is spent. */
  request(grantType: string, build: () => Promise<TokenRequest> | TokenRequest): Promise<TokenResponse> {
    return this.#send(`grant ${grantType}, `, this.#o.url, grantForm(grantType, build), this.#readToken);
  }

  /**
   * POSTs a form whose answer is not a token (RFC 8628's device authorization: a device code to
   * poll with), under the same rules: retries, OAuth errors → the key to fix. `read` reads a 2xx answer.
   */
  postForm<T>(body: URLSearchParams, headers: Headers, read: ReadAnswer<T>): Promise<T> {
    const init = formInit(body, headers);
    return this.#send('', this.#o.url, () => init, read);
  }

  /** POSTs `body` as JSON (an API that issues tokens, not an OAuth grant), under the same rules. */
  postJson(body: unknown, headers: Headers): Promise<TokenResponse> {
    const init = jsonInit(body, headers);
    return this.#send('', this.#o.url, () => init, this.#readToken);
  }

  /**
   * GETs the endpoint's URL with `query` and `headers` (a metadata service), under the same rules.
   * The answer is a token, or what `read` makes of it (a workload's subject token, for one).
   */
  get(query: URLSearchParams, headers: Headers): Promise<TokenResponse>;
  get<T>(query: URLSearchParams, headers: Headers, read: ReadAnswer<T>): Promise<T>;
  get<T>(query: URLSearchParams, headers: Headers, read?: ReadAnswer<T>): Promise<T | TokenResponse> {
    const { url, init } = getInit(this.#o.url, query, headers);
    return this.#send<T | TokenResponse>('', url, () => init, read ?? this.#readToken);
  }

  close(): Promise<void> {
    return this.#o.http.close();
  }

  /** A token answer, in the form the options name (OAuth's by default). */
  readonly #readToken: ReadAnswer<TokenResponse> = (json, response) =>
    (this.#o.readToken ?? readOAuthToken)(json, response, {
      prefix: messagePrefix(this.#o),
      urlKey: this.#o.urlKey,
      secrets: this.#o.secrets,
      errorKeys: this.#o.errorKeys,
      now: this.#o.now,
      dpop: this.#o.dpop !== undefined,
    });

  /** Each attempt: sent (again at once for a DPoP nonce), then read; the retry policy decides what follows. */
  #send<T>(what: string, url: URL, requestFor: () => SendInit | Promise<SendInit>, read: ReadAnswer<T>): Promise<T> {
    const o = this.#o;
    return withRetries(o, what, async (remainingMs): Promise<Attempt<T>> => {
      const sent = await withDpopNonce(o.dpop, url, () => sendTokenRequest(o, url, requestFor, remainingMs));
      if (sent.kind === 'failed')
        return { kind: 'retry', error: sent.error, what: `failed (${sent.error.code})`, retryAfterMs: undefined };
      return readAnswer(o, sent.response, sent.text, read);
    });
  }
}

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
        'method' | 'retryStatuses' | 'refusalStatuses' | 'checkAnswer' | 'unreachableHint' | 'readToken' | 'dpop'
      >
    > & {
      /** Present the `tls_client_*` certificate (RFC 8705 client authentication). */
      presentClientCertificate?: boolean;
    },
): Promise<TokenEndpoint> {
  const { presentClientCertificate, ...rest } = options;
  const tls = await tokenEndpointTls(context.tls, { clientCertificate: presentClientCertificate === true });
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
