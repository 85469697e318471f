import type { ConnectorAuthError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { describeUrl, type HttpAnswer, type HttpClient, type TlsSettings } from '../../network/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { Timers } from '../auth-method.js';
import type { DpopProver } from './dpop.js';

/**
 * What a TokenEndpoint is given, in four small parts, one for each piece that uses it: where the
 * endpoint is (every piece, for its messages), how a request travels (token-request.ts), how an
 * answer is read (read-answer.ts) and how failures are retried (retry-policy.ts).
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

/** Where the endpoint is, and what to call it in messages. */
export interface EndpointTarget {
  url: URL;
  /** The configuration key the URL came from: token_url, or service_account_key (its token_uri). */
  urlKey: string;
  /** The credential's description, e.g. "OAuth 2.0 client credentials for client 'x'". */
  credential: string;
  /** `POST` (default): an OAuth grant, sent by request(). `GET`: a metadata service, asked by get(). */
  method?: 'POST' | 'GET';
}

/** How one request travels (token-request.ts). */
export interface RequestOptions {
  http: HttpClient;
  /**
   * The TLS material when a client certificate is presented (RFC 8705 client authentication): a
   * connection the server closes is then checked for a refusal of the certificate, named and final.
   */
  clientTls?: TlsSettings;
  /** DPoP (RFC 9449): a proof on every request, the server's nonce followed, `DPoP` tokens accepted. */
  dpop?: DpopProver;
}

/** What reading a token answer knows of its endpoint (token-answer.ts). */
export interface TokenAnswerContext {
  /** "<credential>: POST <url>", the start of every message. */
  prefix: string;
  urlKey: string;
  secrets: SecretRegistry;
  errorKeys: OAuthErrorKeys;
  now: () => number;
  /** DPoP is on: a token bound to its key (`token_type: DPoP`) is accepted. */
  dpop: boolean;
}

/** How a successful answer becomes a token: OAuth's form by default, Google IAM Credentials' where asked. */
export type TokenAnswerReader = (
  json: Record<string, unknown> | undefined,
  response: HttpAnswer,
  context: TokenAnswerContext,
) => TokenResponse;

/** How an answer is read (read-answer.ts): a token, a failure worth retrying, or a final refusal naming a key. */
export interface AnswerOptions {
  errorKeys: OAuthErrorKeys;
  secrets: SecretRegistry;
  now: () => number;
  /** The form of a token answer (default: OAuth's `access_token` / `expires_in`, readOAuthToken). */
  readToken?: TokenAnswerReader;
  /** Statuses that are retried (default 408, 429, 500, 502, 503, 504). */
  retryStatuses?: ReadonlySet<number>;
  /**
   * Statuses that are a final refusal naming a key (exit 3), e.g. the GCE server's 404 for an unknown
   * service account; with a hint of its own when the status says more than "check the key".
   */
  refusalStatuses?: Readonly<Record<number, string | { key: string; hint: string }>>;
  /** Checked on every answer before anything else; an error returned is thrown as final (the GCE server's Metadata-Flavor header). */
  checkAnswer?: (response: HttpAnswer) => ConnectorAuthError | undefined;
}

/** How many attempts, how far apart, within how long (defaultRetryPolicy: retry-policy.ts). */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff before the 2nd attempt; doubled each time, capped at maxDelayMs; jittered. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** All attempts and waits of one token acquisition together. */
  budgetMs: number;
}

/** How failures are retried (retry-policy.ts). */
export interface RetryOptions {
  retry: RetryPolicy;
  log: Logger;
  now: () => number;
  timers?: Timers;
  /** [0, 1); injectable so a test can pin the jitter. */
  random?: () => number;
  /** The hint when the endpoint cannot be reached at all, after the retries (default: about a token endpoint). */
  unreachableHint?: string;
}

export interface TokenEndpointOptions extends EndpointTarget, RequestOptions, AnswerOptions, RetryOptions {}

/** One attempt's body and headers; built again for each attempt (an assertion is single-use). */
export interface TokenRequest {
  body: URLSearchParams;
  headers: Headers;
}

/** How a successful answer is read: a token by default; another answer for postForm and get (`json` is the body parsed when it is a JSON object). */
export type ReadAnswer<T> = (json: Record<string, unknown> | undefined, response: HttpAnswer, text: string) => T;

/** "<credential>: POST <url>": how every message about the endpoint starts. */
export function messagePrefix(target: EndpointTarget): string {
  return `${target.credential}: ${target.method ?? 'POST'} ${describeUrl(target.url)}`;
}
