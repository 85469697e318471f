import { AuthenticationError, SourceUnreachableError, isConnectorAuthError } from '../../errors/index.js';
import { redactedLine, type SecretRegistry } from '../../secrets/index.js';
import type { TokenEndpointOptions, TokenResponse } from './token-endpoint-options.js';

/**
 * Reading a token endpoint's answer (token-endpoint.ts): the token in OAuth's form or Google IAM
 * Credentials', the OAuth error name and description a refusal carries, `Retry-After`.
 */

/** What reading an answer needs of its endpoint. */
export type AnswerContext = Pick<
  TokenEndpointOptions,
  'answer' | 'secrets' | 'urlKey' | 'dpop' | 'errorKeys' | 'now'
> & {
  /** "<credential>: POST <url>", the start of every message. */
  prefix: string;
};

/** An OAuth token answer (RFC 6749 §5.1); its tokens are registered as secrets before anything else. */
export function readTokenAnswer(
  json: Record<string, unknown> | undefined,
  response: Response,
  o: AnswerContext,
): TokenResponse {
  if (o.answer === 'iam_credentials') return readIamCredentialsToken(json, response, o);
  const { secrets } = o;
  // Registered first, before anything below can fail and describe the response.
  for (const field of ['access_token', 'refresh_token', 'id_token'] as const)
    if (typeof json?.[field] === 'string') secrets.register(field, json[field] as string);
  const accessToken = json?.access_token;
  if (typeof accessToken !== 'string' || accessToken.length === 0) {
    const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
    throw new SourceUnreachableError(
      `${o.prefix} answered HTTP ${response.status} without an access_token (${json ? 'JSON without the field' : type})`,
      {
        code: 'token_response_malformed',
        key: o.urlKey,
        hint: `check that '${o.urlKey}' is the OAuth 2.0 token endpoint`,
      },
    );
  }
  const tokenType = typeof json!.token_type === 'string' ? json!.token_type : 'Bearer';
  const dpopBound = o.dpop !== undefined && tokenType.toLowerCase() === 'dpop';
  if (tokenType.toLowerCase() !== 'bearer' && !dpopBound) {
    throw new AuthenticationError(
      `${o.prefix} issued a '${redactedLine(tokenType, 20, o.secrets)}' token; only Bearer tokens (RFC 6750) are supported${tokenType.toLowerCase() === 'dpop' ? ", or DPoP ones with 'dpop' set to true" : ''}`,
      {
        code: 'token_type_unsupported',
        key: tokenType.toLowerCase() === 'dpop' ? 'dpop' : o.errorKeys.other,
        hint:
          tokenType.toLowerCase() === 'dpop'
            ? "set 'dpop' to \"true\": the server binds this client's tokens to a DPoP key"
            : 'configure the client at the authorization server to receive Bearer tokens',
      },
    );
  }
  const expires = typeof json!.expires_in === 'string' ? Number(json!.expires_in) : json!.expires_in;
  const refreshToken =
    typeof json!.refresh_token === 'string' && json!.refresh_token.length > 0 ? json!.refresh_token : undefined;
  return {
    accessToken,
    tokenType: dpopBound ? 'DPoP' : 'Bearer',
    expiresInSeconds: typeof expires === 'number' && Number.isFinite(expires) && expires > 0 ? expires : undefined,
    refreshToken,
    scope: typeof json!.scope === 'string' ? json!.scope : undefined,
  };
}

/** `{"accessToken": "…", "expireTime": "2026-11-24T03:00:00Z"}`: Google's generateAccessToken. */
function readIamCredentialsToken(
  json: Record<string, unknown> | undefined,
  response: Response,
  o: AnswerContext,
): TokenResponse {
  const accessToken = json?.accessToken;
  if (typeof accessToken === 'string') o.secrets.register('access_token', accessToken);
  if (typeof accessToken !== 'string' || accessToken.length === 0) {
    throw new SourceUnreachableError(`${o.prefix} answered HTTP ${response.status} without an accessToken`, {
      code: 'token_response_malformed',
      key: o.urlKey,
      hint: `check that '${o.urlKey}' names the IAM credentials API`,
    });
  }
  const expiresAt = typeof json!.expireTime === 'string' ? Date.parse(json!.expireTime) : NaN;
  const expiresInSeconds = Number.isFinite(expiresAt) ? Math.floor((expiresAt - o.now()) / 1000) : undefined;
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresInSeconds: expiresInSeconds && expiresInSeconds > 0 ? expiresInSeconds : undefined,
    refreshToken: undefined,
    scope: undefined,
  };
}

/** An OAuth error code is a short token (RFC 6749 §5.2); anything else is not echoed into a message. */
export function oauthErrorName(error: string): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : 'unrecognised_error';
}

/**
 * A server's error description for a message: ` (text)`, one line, bounded, redacted in case it
 * echoes a value — redacted before it is folded and cut (redactedLine) — ; '' when there is none.
 */
export function serverDetail(description: unknown, secrets: SecretRegistry): string {
  const line =
    typeof description === 'string' && description.trim() !== '' ? redactedLine(description, 200, secrets) : undefined;
  return line ? ` (${line})` : '';
}

/** What an OAuth refusal means, before the key it names. */
export const REFUSAL_HINTS: Record<string, string> = {
  invalid_client: 'the authorization server did not accept the client authentication; check',
  invalid_grant: 'the grant is invalid, expired or revoked; check',
  unauthorized_client: 'this client may not use this grant type; check',
};

/** `text` as a JSON object, or undefined when it is not one. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
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

/** For messages that must say what failed without depending on the error's class. */
export function describeError(error: unknown): string {
  if (isConnectorAuthError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}
