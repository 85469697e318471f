import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A rotated secret sealed for the connection's state: AES-256-GCM under a key derived (HKDF-SHA256,
 * a fresh salt per seal) from the value the configuration holds for that key, which only whoever
 * holds the configuration knows; the key name is bound as associated data. The platform stores the
 * state in clear, next to nothing secret; reading the sealed value needs the configuration too.
 *
 * Text form: `v1.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url; the plaintext is
 * `{"value": …, "rotated_at": ms}`.
 */

const VERSION = 'v1';

export interface RotatedValue {
  value: string;
  /** When this process (or the one before it) received it, ms since the epoch: the newest wins. */
  rotatedAt: number;
}

function keyFor(configured: string, key: string, salt: Buffer): Buffer {
  return Buffer.from(
    hkdfSync(
      'sha256',
      Buffer.from(configured, 'utf8'),
      salt,
      `connector-auth sealed rotated value ${VERSION} ${key}`,
      32,
    ),
  );
}

export function seal(rotated: RotatedValue, configured: string, key: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(configured, key, salt), iv);
  cipher.setAAD(Buffer.from(key, 'utf8'));
  const data = Buffer.concat([
    cipher.update(JSON.stringify({ value: rotated.value, rotated_at: rotated.rotatedAt }), 'utf8'),
    cipher.final(),
  ]);
  return [VERSION, salt, iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * The value sealed in `text`, or undefined when it was not sealed under this configured value (the
 * user authorized again, so the configuration's value is the newer one) or is not a sealed value at all.
 */
export function unseal(text: unknown, configured: string, key: string): RotatedValue | undefined {
  if (typeof text !== 'string') return undefined;
  const parts = text.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
  const [salt, iv, tag, data] = parts.slice(1).map((part) => Buffer.from(part, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  if (salt.length !== 16 || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(configured, key, salt), iv);
    decipher.setAAD(Buffer.from(key, 'utf8'));
    decipher.setAuthTag(tag);
    const plain = JSON.parse(Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')) as {
      value?: unknown;
      rotated_at?: unknown;
    };
    if (typeof plain.value !== 'string' || typeof plain.rotated_at !== 'number') return undefined;
    return { value: plain.value, rotatedAt: plain.rotated_at };
  } catch {
    return undefined;
  }
}
