import type { AuthContext, Credential, OutgoingRequest } from './auth-method.js';
import { TokenCache, type IssuedToken } from './token-cache.js';
import { tokenLifetime, type TokenEndpoint, type TokenResponse } from './token-endpoint.js';

/**
 * The Credential of every token method (client credentials, refresh token, service account key):
 * `Authorization: Bearer <token>` from a TokenCache. Acquiring the token is the first step of the
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
}

export function tokenCredential(o: TokenCredentialOptions): Credential {
  const { context } = o;
  const cache = new TokenCache({
    description: o.description,
    log: context.log,
    now: context.now,
    fetch: async (): Promise<IssuedToken> => {
      const response = await o.obtain();
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
      request.headers.set('authorization', `Bearer ${await cache.token()}`);
    },
    async prepare() {
      await cache.token();
    },
    invalidate: () => cache.invalidate(),
    async close() {
      try {
        await cache.close();
      } finally {
        await o.endpoint.close();
      }
    },
  };
}
