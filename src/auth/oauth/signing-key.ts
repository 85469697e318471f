import { createPrivateKey, createSecretKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ConfigurationError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * A private key that signs JWTs: a service account's key (JWT bearer grant, RFC 7523 §2.1) or a
 * client's key (private_key_jwt client authentication, RFC 7523 §2.2). The algorithm follows from
 * the key itself, so a configuration names a key, never an algorithm it could get wrong.
 *
 * Node's crypto reads the key (PKCS#8, PKCS#1, SEC1 PEM, or a JWK) and jose signs with the
 * KeyObject; jose is imported on the first signature, not when this file loads.
 */

export interface SigningKey {
  readonly key: KeyObject;
  /** RS256 for RSA, ES256/ES384/ES512 for EC P-256/P-384/P-521, EdDSA for Ed25519. */
  readonly alg: string;
  /** The key id a JWK carried, if any. */
  readonly kid: string | undefined;
}

const EC_ALGORITHMS: Record<string, string> = {
  prime256v1: 'ES256',
  'P-256': 'ES256',
  secp384r1: 'ES384',
  'P-384': 'ES384',
  secp521r1: 'ES512',
  'P-521': 'ES512',
};

/**
 * Reads a private key given as PEM (literal "\n" sequences accepted: a PEM pasted into one JSON
 * string) or as a JWK in JSON. `key` names the configuration key in every error; the key material is
 * registered as a secret before anything can fail, so no message or log can show it.
 */
export function loadSigningKey(
  text: string,
  key: string,
  secrets: Pick<SecretRegistry, 'register'>,
  what = 'private key',
): SigningKey {
  const material = text.includes('\\n') && !text.includes('\n') ? text.replace(/\\n/g, '\n') : text;
  secrets.register(key, material);
  const trimmed = material.trim();
  let keyObject: KeyObject;
  let kid: string | undefined;
  try {
    if (trimmed.startsWith('{')) {
      const jwk = JSON.parse(trimmed) as Record<string, unknown>;
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'])
        if (typeof jwk[member] === 'string') secrets.register(key, jwk[member] as string);
      kid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
      keyObject = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } else {
      keyObject = createPrivateKey({ key: trimmed, format: 'pem' });
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    const encrypted = code === 'ERR_MISSING_PASSPHRASE' || /ENCRYPTED/.test(trimmed.slice(0, 60));
    throw new ConfigurationError(
      encrypted
        ? `invalid configuration: the ${what} in '${key}' is encrypted; give it unencrypted (PKCS#8 PEM)`
        : `invalid configuration: '${key}' does not hold a readable ${what} (PEM "-----BEGIN PRIVATE KEY-----" or a JWK with its private members)`,
      { code: 'signing_key_unreadable', key, hint: `put the ${what} (PEM or JWK) in '${key}'` },
    );
  }
  return { key: keyObject, alg: algorithmFor(keyObject, key, what), kid };
}

/** A client secret as an HS256 key (client_secret_jwt): its UTF-8 bytes, as OpenID Connect Core §9 says. */
export function secretSigningKey(secret: string): SigningKey {
  return { key: createSecretKey(Buffer.from(secret, 'utf8')), alg: 'HS256', kid: undefined };
}

function algorithmFor(key: KeyObject, configurationKey: string, what: string): string {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'rsa') {
    // RFC 7518 §3.3: RS256 keys are 2048 bits at least; servers (and jose) refuse smaller ones.
    if ((details.modulusLength ?? 0) < 2048)
      throw new ConfigurationError(
        `invalid configuration: the RSA ${what} in '${configurationKey}' has ${details.modulusLength} bits; RS256 needs 2048 or more`,
        {
          code: 'signing_key_too_small',
          key: configurationKey,
          hint: `generate a 2048-bit (or larger) RSA key for '${configurationKey}'`,
        },
      );
    return 'RS256';
  }
  if (type === 'ec') {
    const alg = EC_ALGORITHMS[details.namedCurve ?? ''];
    if (alg) return alg;
  }
  if (type === 'ed25519') return 'EdDSA';
  throw new ConfigurationError(
    `invalid configuration: the ${what} in '${configurationKey}' is a ${type ?? 'unknown'}${details.namedCurve ? ` ${details.namedCurve}` : ''} key; use RSA, EC (P-256, P-384, P-521) or Ed25519`,
    {
      code: 'signing_key_unsupported',
      key: configurationKey,
      hint: `put an RSA or EC private key in '${configurationKey}'`,
    },
  );
}

/**
 * Signs a JWT and registers it as a secret before returning it: a signed assertion is a bearer
 * credential for as long as it is valid.
 */
export async function signJwt(
  signingKey: SigningKey,
  claims: Record<string, unknown>,
  header: { kid?: string | undefined; x5t?: string; 'x5t#S256'?: string },
  secrets: Pick<SecretRegistry, 'registerForms'>,
  label: string,
): Promise<string> {
  const { SignJWT } = await import('jose');
  const { kid: givenKid, ...certificate } = header;
  const kid = givenKid ?? signingKey.kid;
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: signingKey.alg, typ: 'JWT', ...(kid ? { kid } : {}), ...certificate })
    .sign(signingKey.key);
  secrets.registerForms(label, [jwt, jwt.split('.')[2]!]);
  return jwt;
}

/** A fresh JWT id: assertions are single-use (servers keep a replay cache keyed by jti). */
export const newJwtId = (): string => randomUUID();
