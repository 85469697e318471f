import { AuthenticationError, SourceUnreachableError, isConnectorAuthError } from '../../errors/index.js';
import { redactedLine } from '../../secrets/index.js';
import type { TokenAnswerReader } from './token-endpoint-options.js';

/**
 * The body of a token endpoint's successful answer, read into a token (TokenAnswerReader): OAuth's
 * form (the default) or Google IAM Credentials'. Every token is registered as a secret before
 * anything else.
 */

/** An OAuth token answer (RFC 6749 §5.1). */
export const readOAuthToken: TokenAnswerReader = (json, response, o) => {
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
  const dpopBound = o.dpop && tokenType.toLowerCase() === 'dpop';
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
};

/** `{"accessToken": "…", "expireTime": "2026-11-24T03:00:00Z"}`: Google's generateAccessToken. */
export const readIamCredentialsToken: TokenAnswerReader = (json, response, o) => {
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

/** For messages that must say what failed without depending on the error's class. */
export function describeError(error: unknown): string {
  if (isConnectorAuthError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}
