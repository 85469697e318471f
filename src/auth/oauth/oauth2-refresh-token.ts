import { z } from 'zod';
import { keys } from '../../config/index.js';
import { type AuthContext, defineAuthMethod, defineMethodAuthorization } from '../auth-method.js';
import {
  isUnsavedRefreshToken,
  saveRotatedRefreshToken,
  tokenCredential,
  warnOfUnsavedRefreshToken,
} from '../tokens/index.js';
import { obtainRefreshToken } from './browser/index.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from './client-authentication.js';
import { oauthClient } from './oauth-client.js';
import { HeaderList } from '../../network/index.js';

/**
 * OAuth 2.0 refresh token grant (RFC 6749 §6). When the server rotates the refresh token (OAuth 2.1,
 * RFC 9700 §4.14.2), the old one is dead the moment the answer arrives, so the new one is saved —
 * `persistConfigurationValue('refresh_token', …)`, awaited — before the new access token is used.
 * If it cannot be saved, the run stops (ConfigurationError) and the token waits in a 0600 recovery
 * file under files/ (tokens/rotated-refresh-token.ts). The next refresh always sends the newest
 * refresh token held in memory. `connector-auth authorize` obtains the first refresh token from a
 * person (browser/refresh-token-authorization.ts).
 */
const refreshTokenShape = z.object({
  token_url: keys.url(['https:', 'http:']),
  client_id: keys.text(),
  client_secret: keys.optionalText(),
  refresh_token: keys.optionalText(),
  scope: keys.optionalText(),
  token_endpoint_auth: keys.oneOf(TOKEN_ENDPOINT_AUTH_METHODS, 'client_secret_basic'),
  client_assertion_key: keys.optionalText(),
  client_assertion_key_id: keys.optionalText(),
  client_assertion_certificate: keys.optionalText(),
  dpop: keys.boolean(false),
  // Read by `connector-auth authorize` only: where a person grants the refresh token.
  authorization_url: keys.optionalUrl(['https:', 'http:']),
  device_authorization_url: keys.optionalUrl(['https:', 'http:']),
  redirect_uri: keys.optionalUrl(['http:']),
  authorization_parameters: keys.optionalText(),
});
type RefreshTokenShape = z.output<typeof refreshTokenShape>;

const assertionKeyGiven = refreshTokenShape.refine(
  (k) => k.token_endpoint_auth !== 'private_key_jwt' || k.client_assertion_key !== undefined,
  {
    path: ['client_assertion_key'],
    message: 'is missing (needed when token_endpoint_auth is private_key_jwt)',
  },
);

export const refreshTokenKeys = assertionKeyGiven.refine((k) => k.refresh_token !== undefined, {
  path: ['refresh_token'],
  message:
    "is missing: run `connector-auth authorize` to obtain one in a browser (with 'authorization_url' set), or paste one in",
});

/** What `connector-auth authorize` reads: the refresh token is what it obtains; the authorization endpoint is needed. */
export const authorizationKeys = assertionKeyGiven.refine(
  (k) => k.authorization_url !== undefined || k.device_authorization_url !== undefined,
  {
    path: ['authorization_url'],
    message:
      "is missing: authorize needs the server's authorization endpoint (its metadata's authorization_endpoint), " +
      "or 'device_authorization_url' for the device flow",
  },
);

const KEY = 'refresh_token';
const METHOD_SCOPE = "auth_method 'oauth2_refresh_token'";

export default defineAuthMethod({
  name: 'oauth2_refresh_token',
  summary: 'OAuth 2.0 refresh token: exchanged for access tokens; a rotated refresh token is saved before it is used',
  keys: refreshTokenKeys,
  rotationDays: 90,
  async create(k, context) {
    await warnOfUnsavedRefreshToken(context);
    const { description, endpoint, client } = await tokenClient(k, context, KEY);

    let refreshToken = k.refresh_token!;
    return tokenCredential({
      method: 'oauth2_refresh_token',
      // As its key line says: the API's token, not a database login.
      bearerToken: false,
      description,
      rejectedKey: KEY,
      endpoint,
      context,
      dpop: client.dpop,
      isFatal: isUnsavedRefreshToken,
      obtain: () =>
        context.rotatingSecret ? context.rotatingSecret(KEY, refreshToken, exchange) : exchange(refreshToken),
    });

    /** One refresh with `sent`: the newest refresh token known, this run's own or the host's. */
    async function exchange(sent: string) {
      refreshToken = sent;
      const response = await endpoint.request('refresh_token', async () => {
        const request = { body: new URLSearchParams({ refresh_token: sent }), headers: new HeaderList() };
        if (k.scope) request.body.set('scope', k.scope);
        await client.authenticate(request);
        return request;
      });
      if (response.refreshToken !== undefined && response.refreshToken !== sent) {
        // In memory first: whatever happens next, the only valid refresh token is the new one.
        refreshToken = response.refreshToken;
        await saveRotatedRefreshToken(response.refreshToken, description, context);
      }
      return response;
    }
  },
  authorize: defineMethodAuthorization({
    keys: authorizationKeys,
    run: (k, context, handoff) =>
      obtainRefreshToken({
        k,
        context,
        handoff,
        methodScope: METHOD_SCOPE,
        // A code the token endpoint does not know was most likely issued by another server than token_url's.
        tokenClient: () => tokenClient(k, context, 'token_url'),
      }),
  }),
});

/** The client's authentication and its token endpoint, as both the refresh and the authorization code grant use them. */
async function tokenClient(k: RefreshTokenShape, context: AuthContext, invalidGrantKey: string) {
  const description = `OAuth 2.0 refresh token for client '${k.client_id}'`;
  const client = oauthClient(k, context, { scope: METHOD_SCOPE, description });
  const endpoint = await client.endpoint(k.token_url, 'token_url', {
    invalid_grant: invalidGrantKey,
    unauthorized_client: 'client_id',
    invalid_scope: 'scope',
    other: 'client_id',
  });
  return { description, endpoint, client };
}
