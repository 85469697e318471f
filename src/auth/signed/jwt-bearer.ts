import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { defineAuthMethod, type CredentialWith } from '../auth-method.js';
import type { OutgoingRequest } from '../capabilities.js';
import { loadSigningKey, secretSigningKey, signJwt, type SigningKey } from '../oauth/index.js';
import { TokenCache } from '../tokens/index.js';

/**
 * A JWT the connector signs itself and sends as `Authorization: Bearer <jwt>`, with no token
 * endpoint in between: GitHub Apps (`iss` = the app id, at most 10 minutes), App Store Connect,
 * Zoom's server-to-server apps of old. The algorithm follows from the key: RS256 for an RSA key,
 * ES256 for a P-256 key (`jwt_private_key`), HS256 for a shared secret (`jwt_secret`).
 *
 * The JWT is kept in the token cache like an issued token: signed once per lifetime whatever the
 * concurrency, and signed again ahead of its expiry.
 */

/** `iat` this far in the past: the clock skew GitHub asks for, so a server a little behind accepts it. */
const BACKDATE_SECONDS = 60;

const jwtKeys = z.object({
  jwt_private_key: keys.optionalText(),
  jwt_secret: keys.optionalText(),
  jwt_issuer: keys.text(),
  jwt_subject: keys.optionalText(),
  jwt_audience: keys.optionalText(),
  jwt_key_id: keys.optionalText(),
  jwt_lifetime_seconds: keys.integer({ min: 30, max: 86_400, default: 600 }),
  jwt_claims: keys.optionalText(),
});
type JwtKeys = z.output<typeof jwtKeys>;

export default defineAuthMethod({
  name: 'jwt_bearer',
  summary:
    'a JWT the connector signs itself (RS256, ES256, HS256) sent as the bearer token: GitHub Apps, App Store Connect',
  keys: jwtKeys,
  create(k, { secrets, log, now }): CredentialWith<'httpRequest'> {
    const { signingKey, keyName } = signingKeyOf(k, secrets);
    const extra = extraClaims(k.jwt_claims);
    const description = `a JWT signed as '${k.jwt_issuer}' (${signingKey.alg})`;
    const cache = new TokenCache<string>({
      description,
      log,
      now,
      noun: 'signed JWT',
      fetch: async () => {
        const issuedAt = Math.floor(now() / 1000);
        const claims = {
          ...extra,
          iss: k.jwt_issuer,
          ...(k.jwt_subject ? { sub: k.jwt_subject } : {}),
          ...(k.jwt_audience ? { aud: k.jwt_audience } : {}),
          iat: issuedAt - BACKDATE_SECONDS,
          exp: issuedAt + k.jwt_lifetime_seconds,
        };
        const jwt = await signJwt(signingKey, claims, { kid: k.jwt_key_id }, secrets, keyName);
        return { value: jwt, lifetimeMs: k.jwt_lifetime_seconds * 1000 };
      },
    });
    return {
      method: 'jwt_bearer',
      description,
      rejectedKey: keyName,
      sendsSecret: true,
      httpRequest: {
        async authorize(request: OutgoingRequest) {
          request.headers.set('authorization', `Bearer ${await cache.token()}`);
        },
      },
      // Signing is the probe's first step: a key jose cannot sign with fails before any request.
      async prepare() {
        await cache.token();
      },
      async close() {
        await cache.close();
      },
    };
  },
});

/** The key from exactly one of jwt_private_key (RS256, ES256) and jwt_secret (HS256), registered. */
function signingKeyOf(
  k: JwtKeys,
  secrets: Parameters<typeof loadSigningKey>[2],
): { signingKey: SigningKey; keyName: string } {
  if (k.jwt_private_key && k.jwt_secret)
    throw new ConfigurationError('invalid configuration: jwt_private_key and jwt_secret are both set', {
      code: 'jwt_key_twice',
      key: 'jwt_secret',
      hint: 'keep one: a private key (RS256, ES256) or a shared secret (HS256)',
    });
  if (k.jwt_private_key)
    return { signingKey: loadSigningKey(k.jwt_private_key, 'jwt_private_key', secrets), keyName: 'jwt_private_key' };
  if (k.jwt_secret) {
    secrets.register('jwt_secret', k.jwt_secret);
    return { signingKey: secretSigningKey(k.jwt_secret), keyName: 'jwt_secret' };
  }
  throw new ConfigurationError('invalid configuration: jwt_bearer needs jwt_private_key or jwt_secret', {
    code: 'jwt_key_missing',
    key: 'jwt_private_key',
    hint: 'set jwt_private_key to the PEM private key (RS256, ES256), or jwt_secret to the shared secret (HS256)',
  });
}

/** `jwt_claims`: a JSON object of further claims (App Store Connect's `bid`, a `scope`). */
function extraClaims(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  throw new ConfigurationError('invalid configuration: jwt_claims is not a JSON object', {
    code: 'jwt_claims_invalid',
    key: 'jwt_claims',
    hint: 'write the further claims as a JSON object: {"bid": "com.example.app"}',
  });
}
