import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { HeaderReader } from '../../network/index.js';

/**
 * DPoP (RFC 9449): access tokens bound to a key pair only this process holds. Every token request
 * and every request to the API carries a fresh proof, a JWT signed with the private key: the HTTP
 * method (`htm`), the URL without query or fragment (`htu`), the time (`iat`), a unique `jti`, the
 * server's nonce once it has asked for one, and for the API the hash of the access token (`ath`).
 * A stolen token is useless without the key, which is made when the credential is, in memory, and
 * never written anywhere (Okta, Auth0 and FAPI 2.0 servers take it; oidc-provider too).
 *
 * Nonces (§8, §9): a server may answer `use_dpop_nonce` with a `DPoP-Nonce` header; the nonce is
 * kept per origin and put in every later proof for that origin, and a new one replaces it whenever a
 * response carries one.
 */

export interface DpopProver {
  /** The proof for one request. `accessToken` for a request to the API (`ath`). */
  proof(method: string, url: URL, accessToken?: string): Promise<string>;
  /** Keeps the `DPoP-Nonce` a response of `url`'s origin carried, if any; true when it changed. */
  learnNonce(url: URL, headers: HeaderReader): boolean;
  /** The key's JWK thumbprint (RFC 7638), as a bound token's `cnf.jkt` names it. */
  readonly thumbprint: string;
}

export function createDpopProver(now: () => number): DpopProver {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const nonces = new Map<string, string>();
  return {
    thumbprint: jwkThumbprint(publicJwk),
    async proof(method, url, accessToken) {
      const htu = new URL(url);
      htu.search = '';
      htu.hash = '';
      const nonce = nonces.get(url.origin);
      return sign(privateKey, publicJwk, {
        jti: randomUUID(),
        htm: method.toUpperCase(),
        htu: htu.href,
        iat: Math.floor(now() / 1000),
        ...(nonce ? { nonce } : {}),
        ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
      });
    },
    learnNonce(url, headers) {
      const nonce = headers.get('dpop-nonce')?.trim();
      // RFC 9449 §8: a nonce is printable ASCII, no quotes or backslashes.
      if (!nonce || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(nonce) || nonces.get(url.origin) === nonce) return false;
      nonces.set(url.origin, nonce);
      return true;
    },
  };
}

async function sign(
  privateKey: KeyObject,
  jwk: Record<string, string>,
  claims: Record<string, unknown>,
): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT(claims).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk }).sign(privateKey);
}

/** RFC 7638 for an EC key: SHA-256 of the required members in lexical order, base64url. */
function jwkThumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
}
