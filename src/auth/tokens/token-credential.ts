import type { HeaderReader } from '../../network/index.js';
import type { AuthContext, Credential } from '../auth-method.js';
import type { HttpRequestCapability, OutgoingRequest } from '../capabilities.js';
import type { DpopProver, TokenEndpoint, TokenResponse } from '../token-endpoint/index.js';
import { TokenCache } from './token-cache.js';
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
  /**
   * False when the token is for the API it was granted for only: no `bearerToken` capability, so no
   * database takes it as a login (the refresh token method's, a person's delegated token).
   */
  bearerToken?: boolean;
}

/** A token with the type it was issued as. */
interface HeldToken {
  value: string;
  type: TokenResponse['tokenType'];
}

export function tokenCredential(o: TokenCredentialOptions): Credential {
  const cache = heldTokens(o);
  // Which token each request went out with, so a 401 drops that one and not a newer token.
  const sentWith = new WeakMap<OutgoingRequest, HeldToken>();
  return {
    method: o.method,
    description: o.description,
    rejectedKey: o.rejectedKey,
    sendsSecret: true,
    httpRequest: {
      async authorize(request: OutgoingRequest) {
        const token = await cache.token();
        sentWith.set(request, token);
        await presentToken(request, token, o.dpop);
      },
      ...(o.dpop ? dpopNonces(o.dpop) : {}),
    },
    // A database that accepts a cloud token as its password (Cloud SQL IAM login, Azure Database for
    // PostgreSQL with Entra ID) asks at each login, from the same cache: logins share one token per lifetime.
    ...(o.bearerToken === false ? {} : { bearerToken: { read: async () => (await cache.token()).value } }),
    async prepare() {
      await cache.token();
    },
    invalidate: (refused?: OutgoingRequest) => cache.invalidate(refused ? sentWith.get(refused) : undefined),
    close: () => closeAll(cache, o),
  };
}

/**
 * Each token is kept with its type: a server may answer Bearer even to a DPoP proof (it does not
 * bind), and a request must send a token with the type it was issued as, also across a renewal.
 */
function heldTokens(o: TokenCredentialOptions): TokenCache<HeldToken> {
  const { context } = o;
  return new TokenCache<HeldToken>({
    description: o.description,
    log: context.log,
    now: context.now,
    ...(o.isFatal ? { isFatal: o.isFatal } : {}),
    fetch: async () => {
      const response = await o.obtain();
      const lifetime = tokenLifetime(response, context.now(), context.log, o.description);
      context.log.debug(
        `${o.description}: access token obtained, valid for ${Math.round(lifetime.seconds)}s (${lifetime.source})`,
      );
      return { value: { value: response.accessToken, type: response.tokenType }, lifetimeMs: lifetime.seconds * 1000 };
    },
  });
}

async function presentToken(request: OutgoingRequest, token: HeldToken, dpop: DpopProver | undefined): Promise<void> {
  if (token.type === 'DPoP' && dpop) {
    request.headers.set('authorization', `DPoP ${token.value}`);
    request.headers.set('dpop', await dpop.proof(request.method, request.url, token.value));
    return;
  }
  request.headers.set('authorization', `Bearer ${token.value}`);
}

function dpopNonces(dpop: DpopProver): Pick<HttpRequestCapability, 'observeAnswer' | 'answersChallenge'> {
  return {
    // An API may hand out the next DPoP nonce with any answer...
    observeAnswer: (url: URL, headers: HeaderReader) => void dpop.learnNonce(url, headers),
    // ... and asks for one in a 401: the same token goes again with the nonce observeAnswer kept.
    // (A DPoP scheme in the challenge: only a DPoP-bound token is answered this way.)
    answersChallenge: (_url: URL, headers: HeaderReader) =>
      /\bDPoP\b/i.test(headers.get('www-authenticate') ?? '') &&
      /\buse_dpop_nonce\b/.test(headers.get('www-authenticate') ?? '') &&
      headers.get('dpop-nonce') !== null,
  };
}

/**
 * The cache first (it may still use the endpoint), then each of the others whatever the rest do; the
 * first failure is the one reported.
 */
async function closeAll(cache: TokenCache<HeldToken>, o: TokenCredentialOptions): Promise<void> {
  const [cacheClosed] = await Promise.allSettled([cache.close()]);
  const closed = await Promise.allSettled([o.endpoint, ...(o.alsoClose ?? [])].map((each) => each.close()));
  const failed = [cacheClosed!, ...closed].find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
