import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed event deliveries, as the real service signs them: a webhook created with a `secret` gets
 * every event with the HMAC-SHA256 of the exact body bytes, keyed with that secret, in hexadecimal
 * in `X-Fivetran-Signature-256`. The emulator signs its deliveries this way (event-delivery.ts);
 * a receiver checks them with verifyWebhookSignature before it trusts a payload.
 */

export const WEBHOOK_SIGNATURE_HEADER = 'x-fivetran-signature-256';

/** The signature of `body` under `secret`: uppercase hexadecimal, as the real service sends it. */
export function signWebhookPayload(body: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex').toUpperCase();
}

/**
 * Whether `signature` (the header's value) is the signature of `body` under `secret`. Compared in
 * constant time, hexadecimal in either case; a missing signature or an empty secret never verifies.
 * `body` must be the raw bytes received, before any JSON parsing: a re-serialized object differs.
 */
export function verifyWebhookSignature(
  body: string | Uint8Array,
  signature: string | readonly string[] | null | undefined,
  secret: string,
): boolean {
  // Node's req.headers gives a string, or an array when the header came more than once: one signature only.
  if (Array.isArray(signature)) signature = signature.length === 1 ? signature[0] : undefined;
  if (!secret || typeof signature !== 'string' || !/^[0-9a-fA-F]{64}$/.test(signature.trim())) return false;
  const expected = Buffer.from(signWebhookPayload(body, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature.trim(), 'hex'));
}
