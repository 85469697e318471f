import type { Logger } from '../../log/index.js';
import type { TokenResponse } from '../token-endpoint/index.js';

/** Lifetime used when a server says nothing about it: short, so an unannounced short lifetime is rarely met. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;

export interface TokenLifetime {
  seconds: number;
  source: 'expires_in' | 'jwt_exp' | 'default';
}

/**
 * How long a token lives: `expires_in`; else, for a JWT access token, `exp − iat` (both the server's
 * clock, so a skew between its clock and ours does not matter), or `exp` − now without `iat`; else
 * DEFAULT_TOKEN_LIFETIME_SECONDS with a warning. A missing `expires_in` is allowed (RFC 6749 §5.1
 * says RECOMMENDED), so it is never an error.
 */
export function tokenLifetime(token: TokenResponse, nowMs: number, log: Logger, credential: string): TokenLifetime {
  if (token.expiresInSeconds !== undefined) return { seconds: token.expiresInSeconds, source: 'expires_in' };
  const claims = jwtClaims(token.accessToken);
  if (claims && typeof claims.exp === 'number') {
    const life =
      typeof claims.iat === 'number' && claims.exp > claims.iat ? claims.exp - claims.iat : claims.exp - nowMs / 1000;
    if (life > 0) {
      log.debug(
        `${credential}: the token response has no expires_in; using the access token's exp (${Math.round(life)}s)`,
      );
      return { seconds: life, source: 'jwt_exp' };
    }
  }
  log.warning(
    `${credential}: the token response has no expires_in and the access token is not a JWT with exp; ` +
      `assuming ${DEFAULT_TOKEN_LIFETIME_SECONDS}s (a 401 from the source still forces a new token)`,
  );
  return { seconds: DEFAULT_TOKEN_LIFETIME_SECONDS, source: 'default' };
}

function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
