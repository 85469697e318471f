import { z } from 'zod';
import { keys } from '../../config/index.js';
import { AuthenticationError, ConfigurationError } from '../../errors/index.js';
import {
  type AuthContext,
  type BrowserHandoff,
  defineAuthMethod,
  defineMethodAuthorization,
  realTimers,
} from '../auth-method.js';
import {
  DEFAULT_REDIRECT_URI,
  authorizationCodeGrant,
  checkRedirectUri,
  parseAuthorizationParameters,
  deviceAuthorizationGrant,
} from './browser/index.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from './client-authentication.js';
import { recoveryFileExists, recoveryFilePath, writeRecoveryFile, tokenCredential } from '../tokens/index.js';
import { oauthClient, type OAuthClient } from './oauth-client.js';
import {
  checkTokenEndpointUrl,
  describeError,
  type TokenEndpoint,
  type TokenResponse,
} from '../token-endpoint/index.js';

/**
 * OAuth 2.0 refresh token grant (RFC 6749 §6). When the server rotates the refresh token (OAuth 2.1,
 * RFC 9700 §4.14.2), the old one is dead the moment the answer arrives, so the new one is saved —
 * `persistConfigurationValue('refresh_token', …)`, awaited — before the new access token is used.
 * If it cannot be saved, the run stops (ConfigurationError) and the token waits in a 0600 recovery
 * file under files/. The next refresh always sends the newest refresh token held in memory.
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
    const { log } = context;
    if (context.filesDir && (await recoveryFileExists(context.filesDir, KEY))) {
      log.warning(
        `${recoveryFilePath(context.filesDir, KEY)} holds a rotated refresh token that was never saved to the configuration; ` +
          `if 'refresh_token' is refused, copy its "value" into 'refresh_token' and delete the file`,
      );
    }
    const { description, endpoint, client } = await tokenClient(k, context, KEY);

    let refreshToken = k.refresh_token!;
    return tokenCredential({
      method: 'oauth2_refresh_token',
      // As the catalogue says: the API's token, not a database login.
      bearerToken: false,
      description,
      rejectedKey: KEY,
      endpoint,
      context,
      dpop: client.dpop,
      // A rotated refresh token that could not be saved lives only in the recovery file now: another
      // refresh would rotate it again, to a value saved nowhere, and the recovery file's would be retired.
      isFatal: (error) => error instanceof ConfigurationError && error.code === 'refresh_token_not_saved',
      obtain: () =>
        context.rotatingSecret ? context.rotatingSecret(KEY, refreshToken, exchange) : exchange(refreshToken),
    });

    /** One refresh with `sent`: the newest refresh token known, this run's own or the host's. */
    async function exchange(sent: string) {
      refreshToken = sent;
      const response = await endpoint.request('refresh_token', async () => {
        const request = { body: new URLSearchParams({ refresh_token: sent }), headers: new Headers() };
        if (k.scope) request.body.set('scope', k.scope);
        await client.authenticate(request);
        return request;
      });
      if (response.refreshToken !== undefined && response.refreshToken !== sent) {
        // In memory first: whatever happens next, the only valid refresh token is the new one.
        refreshToken = response.refreshToken;
        await saveRotatedToken(response.refreshToken, description, context);
      }
      return response;
    }
  },
  authorize: defineMethodAuthorization({
    keys: authorizationKeys,
    async run(k, context, handoff) {
      const device = handoff.flow === 'device' || k.authorization_url === undefined;
      if (device && k.device_authorization_url === undefined) {
        throw new ConfigurationError(
          `invalid configuration for ${METHOD_SCOPE}: key 'device_authorization_url' is missing (needed for the device flow)`,
          {
            code: 'missing_key',
            key: 'device_authorization_url',
            hint: "set 'device_authorization_url' to the server's device authorization endpoint (its metadata's device_authorization_endpoint), or leave out --device",
          },
        );
      }
      const parameters = parseAuthorizationParameters(k.authorization_parameters, 'authorization_parameters');
      const persist = context.persistConfigurationValue;
      if (!persist)
        throw new Error('authorize needs persistConfigurationValue: the refresh token it obtains must be saved');
      // A code the token endpoint does not know was most likely issued by another server than token_url's.
      const { description, endpoint, client } = await tokenClient(k, context, 'token_url');
      if (k.refresh_token !== undefined)
        context.log.info(`${description}: the refresh token obtained replaces the one in 'refresh_token'`);
      const save = async (token: TokenResponse) => {
        if (token.refreshToken === undefined) throw noRefreshToken(description, k.scope);
        await persist(KEY, token.refreshToken);
        return { saved: [KEY], scope: token.scope };
      };
      const flow = { k, context, handoff, parameters, description, endpoint, client, save };
      try {
        return await (device ? deviceFlow(flow) : loopbackFlow(flow));
      } finally {
        await endpoint.close();
      }
    },
  }),
});

/** What both ways of obtaining the refresh token share: the client, its token endpoint, and how the token is saved. */
interface Flow {
  k: RefreshTokenShape;
  context: AuthContext;
  handoff: BrowserHandoff;
  parameters: URLSearchParams;
  description: string;
  endpoint: TokenEndpoint;
  client: OAuthClient;
  save(token: TokenResponse): Promise<{ saved: string[]; scope: string | undefined }>;
}

/** The browser comes back to this machine: the authorization code grant with PKCE. */
async function loopbackFlow(f: Flow) {
  const authorizationUrl = f.k.authorization_url!;
  checkTokenEndpointUrl(
    authorizationUrl,
    'authorization_url',
    METHOD_SCOPE,
    "carry the person's sign-in",
    'the authorization endpoint',
  );
  const redirectUri = f.k.redirect_uri ?? new URL(DEFAULT_REDIRECT_URI);
  checkRedirectUri(redirectUri, 'redirect_uri');
  const { context } = f;
  return authorizationCodeGrant(
    {
      authorizationUrl,
      clientId: f.k.client_id,
      scope: f.k.scope,
      parameters: f.parameters,
      redirectUri,
      endpoint: f.endpoint,
      authenticateClient: f.client.authenticate,
      handoff: f.handoff,
      secrets: context.secrets,
      log: context.log,
      description: f.description,
    },
    async (token) => ({
      result: await f.save(token),
      page: `The refresh token of client '${f.k.client_id}' is saved in the connector's configuration. You can close this tab.`,
    }),
  );
}

/** No browser here: the device authorization grant, polled at token_url. */
async function deviceFlow(f: Flow) {
  const url = f.k.device_authorization_url!;
  checkTokenEndpointUrl(
    url,
    'device_authorization_url',
    METHOD_SCOPE,
    'send the client credentials',
    'the device authorization endpoint',
  );
  const { context } = f;
  const deviceEndpoint = await f.client.endpoint(
    url,
    'device_authorization_url',
    { invalid_grant: 'client_id', unauthorized_client: 'client_id', invalid_scope: 'scope', other: 'client_id' },
    { dpop: false },
  );
  try {
    return await deviceAuthorizationGrant(
      {
        deviceEndpoint,
        endpoint: f.endpoint,
        authenticateClient: f.client.authenticate,
        scope: f.k.scope,
        parameters: f.parameters,
        handoff: f.handoff,
        secrets: context.secrets,
        log: context.log,
        description: f.description,
        now: context.now,
        timers: context.timers ?? realTimers,
      },
      f.save,
    );
  } finally {
    await deviceEndpoint.close();
  }
}

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

/** Servers issue a refresh token only when asked in their own way; the hint lists the common ones. */
function noRefreshToken(description: string, scope: string | undefined): AuthenticationError {
  return new AuthenticationError(
    `${description}: the authorization server issued an access token but no refresh token; nothing was saved`,
    {
      code: 'refresh_token_not_issued',
      key: 'scope',
      hint:
        `ask for offline access the way the server wants it: the 'offline_access' scope in 'scope' (OpenID Connect servers, Microsoft Entra; ` +
        `many also need prompt=consent in 'authorization_parameters'), access_type=offline&prompt=consent in 'authorization_parameters' (Google), ` +
        `or the 'refresh_token' scope (Salesforce)${scope ? `; 'scope' is now '${scope}'` : ''}`,
    },
  );
}

async function saveRotatedToken(value: string, description: string, context: AuthContext): Promise<void> {
  const { log, filesDir, persistConfigurationValue: persist } = context;
  if (!persist) {
    const path = filesDir
      ? await writeRecoveryFile(filesDir, KEY, value, { now: context.now() }).catch(() => undefined)
      : undefined;
    log.warning(
      `${description}: the authorization server rotated the refresh token, and nothing was given to save it ` +
        `(persistConfigurationValue); the new one is kept in memory${path ? ` and in ${path}` : ' only'}: ` +
        `a later run with the old 'refresh_token' will be refused (invalid_grant)`,
    );
    return;
  }
  try {
    await persist(KEY, value);
    log.info(
      `${description}: the authorization server rotated the refresh token; the new one is saved in the configuration`,
    );
    return;
  } catch (error) {
    let path: string | undefined;
    let recoveryFailure: unknown;
    if (filesDir) {
      try {
        path = await writeRecoveryFile(filesDir, KEY, value, { now: context.now() });
      } catch (e) {
        recoveryFailure = e;
      }
    }
    // The local runner's persister already says which files are involved; say it here otherwise.
    if (error instanceof ConfigurationError && path !== undefined && error.message.includes(path))
      throw new ConfigurationError(error.message, {
        code: 'refresh_token_not_saved',
        key: error.key ?? KEY,
        hint: error.hint,
        cause: error,
      });
    const where = path
      ? `the new refresh token is kept in ${path} (mode 0600): copy its "value" into 'refresh_token' and delete the file`
      : filesDir
        ? `writing it to ${recoveryFilePath(filesDir, KEY)} failed too (${describeError(recoveryFailure)}): the refresh token must be issued again`
        : 'no files folder was given for a recovery file: the refresh token must be issued again';
    throw new ConfigurationError(
      `${description}: the authorization server rotated the refresh token, but saving it failed (${describeError(error)}); ${where}`,
      {
        code: 'refresh_token_not_saved',
        key: KEY,
        hint: "make the configuration writable, then put the recovered value in 'refresh_token'",
        cause: error,
      },
    );
  }
}
