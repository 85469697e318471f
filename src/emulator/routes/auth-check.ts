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
  const encoded = match[1]!;
  const bytes = Buffer.from(encoded, 'base64');
  // Node's decoder is lenient: it ignores missing or extra padding, anything after an '=' and set
  // trailing bits. A strict server refuses such a header, so a client bug that sends one must fail
  // against the emulator too, not pass: only canonical base64 (re-encoding gives it back) is accepted.
  if (bytes.toString('base64') !== encoded) return false;
  return sameSecret(bytes.toString('utf8'), `${username}:${password}`);
}

/** `Authorization: Bearer <token>` (RFC 6750). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = header ? /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  if (!match) return false;
  return sameSecret(match[1]!, token);
}
