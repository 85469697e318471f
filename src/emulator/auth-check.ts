import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Credential checks in constant time. Both sides are hashed first, so the comparison has one length
 * whatever was sent: `timingSafeEqual` alone would throw on a length mismatch, and an early length
 * check would tell an attacker the secret's length.
 */

export type WebhookAuthScheme = 'bearer' | 'basic';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** `Authorization: Basic base64(user:password)` with exactly these credentials (RFC 7617). */
export function basicMatches(header: string | undefined, username: string, password: string): boolean {
  const match = header ? /^basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header) : null;
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  return sameSecret(decoded, `${username}:${password}`);
}

/** `Authorization: Bearer <token>` (RFC 6750). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = header ? /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  if (!match) return false;
  return sameSecret(match[1]!, token);
}
