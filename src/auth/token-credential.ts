import type { AuthContext, Credential, OutgoingRequest } from './auth-method.js';
import type { DpopProver } from './dpop.js';
import { TokenCache, type IssuedToken } from './token-cache.js';
import type { TokenEndpoint, TokenResponse } from './token-endpoint.js';
import { tokenLifetime } from './token-lifetime.js';

/**
 * The Credential of every token method (client credentials, refresh token, service account key):
 * `Authorization: Bearer <token>` from a TokenCache, or `DPoP <token>` with a proof (dpop.ts). Acquiring the token is the first step of the
 * probe (`prepare`), so a wrong client secret fails there, before the source is asked anything.
 */
export interface TokenCredentialOptions {
  method: string;
  description: string;
  rejectedKey: string;
  endpoint: TokenEndpoint;
  context: AuthContext;
  /** One token request (with its retries), and whatever must happen before its token is used. */
  obtain: () => Promise<TokenResponse>;
  /** DPoP (RFC 9449): a DPoP-bound token goes with a proof for each request's method and URL. */
  dpop?: DpopProver | undefined;
  /** An error of `obtain` after which no token may be asked for again (TokenCache's isFatal). */
  isFatal?: (error: unknown) => boolean;
  /** What else `obtain` goes through (another endpoint, a metadata session): closed after `endpoint`. */
  alsoClose?: { close(): Promise<void> }[];
}

/**
 * A credential whose secret is a short-lived access token, also asked for as such: a database that
 * accepts a cloud token as its password (Cloud SQL IAM login, Azure Database for PostgreSQL with
 * Entra ID) asks for one at each login, from the same cache, so logins share one token per lifetime.
 */
export interface AccessTokenCredential extends Credential {
  accessToken(): Promise<string>;
}

export function isAccessTokenCredential(credential: Credential): credential is AccessTokenCredential {
  return typeof (credential as Partial<AccessTokenCredential>).accessToken === 'function';
}

export function tokenCredential(o: TokenCredentialOptions): AccessTokenCredential {
  const { context, dpop } = o;
  /** The type of the token in the cache: a server may answer Bearer even to a DPoP proof (it does not bind). */
  let tokenType: TokenResponse['tokenType'] = 'Bearer';
  const cache = new TokenCache({
    description: o.description,
    log: context.log,
    now: context.now,
    ...(o.isFatal ? { isFatal: o.isFatal } : {}),
    fetch: async (): Promise<IssuedToken> => {
      const response = await o.obtain();
      tokenType = response.tokenType;
      const lifetime = tokenLifetime(response, context.now(), context.log, o.description);
      context.log.debug(`${o.description}: access token obtained, valid for ${Math.round(lifetime.seconds)}s (${lifetime.source})`);
      return { value: response.accessToken, lifetimeMs: lifetime.seconds * 1000 };
    },
  });
  return {
    method: o.method,
    description: o.description,
    rejectedKey: o.rejectedKey,
    sendsSecret: true,
    async authorize(request: OutgoingRequest) {
      const token = await cache.token();
      if (tokenType === 'DPoP' && dpop) {
        request.headers.set('authorization', `DPoP ${token}`);
        request.headers.set('dpop', await dpop.proof(request.method, request.url, token));
        return;
      }
      request.headers.set('authorization', `Bearer ${token}`);
    },
    ...(dpop
      ? {
          // An API may hand out the next DPoP nonce with any answer...
          observeAnswer: (url: URL, headers: { get(name: string): string | null }) => void dpop.learnNonce(url, headers),
          // ... and asks for one in a 401: the same token goes again with the nonce observeAnswer kept.
          answersChallenge: (_url: URL, headers: { get(name: string): string | null }) =>
            tokenType === 'DPoP' && /\buse_dpop_nonce\b/.test(headers.get('www-authenticate') ?? '') && headers.get('dpop-nonce') !== null,
        }
      : {}),
    accessToken: () => cache.token(),
    async prepare() {
      await cache.token();
    },
    invalidate: () => cache.invalidate(),
    async close() {
      try {
        await cache.close();
      } finally {
        // Each is closed whatever the others do; the first failure is the one reported.
        const closed = await Promise.allSettled([o.endpoint, ...(o.alsoClose ?? [])].map((each) => each.close()));
        const failed = closed.find((result) => result.status === 'rejected');
        if (failed) throw failed.reason;
      }
    },
  };
}
