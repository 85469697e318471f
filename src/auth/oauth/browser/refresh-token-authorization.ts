import { AuthenticationError, ConfigurationError } from '../../../errors/index.js';
import { realTimers, type AuthContext, type BrowserHandoff } from '../../auth-method.js';
import { checkTokenEndpointUrl, type TokenEndpoint, type TokenResponse } from '../../token-endpoint/index.js';
import type { OAuthClient } from '../index.js';
import {
  DEFAULT_REDIRECT_URI,
  authorizationCodeGrant,
  checkRedirectUri,
  parseAuthorizationParameters,
} from './authorization-code.js';
import { deviceAuthorizationGrant } from './device-authorization.js';

/**
 * `connector-auth authorize` for the refresh token method: a person grants the refresh token, in a
 * browser that comes back to this machine (the authorization code grant with PKCE) or, with no
 * browser here, with a device code; the token is saved in the configuration (persistConfigurationValue).
 */

const KEY = 'refresh_token';

/** The keys authorize reads. */
export interface RefreshTokenAuthorizationKeys {
  client_id: string;
  scope?: string | undefined;
  refresh_token?: string | undefined;
  authorization_url?: URL | undefined;
  device_authorization_url?: URL | undefined;
  redirect_uri?: URL | undefined;
  authorization_parameters?: string | undefined;
}

/** The client as the method makes it: its description, its token endpoint, its authentication. */
export interface RefreshTokenClient {
  description: string;
  endpoint: TokenEndpoint;
  client: OAuthClient;
}

export interface RefreshTokenAuthorization {
  k: RefreshTokenAuthorizationKeys;
  context: AuthContext;
  handoff: BrowserHandoff;
  /** "auth_method 'oauth2_refresh_token'", for configuration errors. */
  methodScope: string;
  /** Made once the keys are checked; its endpoint is closed when authorize ends. */
  tokenClient(): Promise<RefreshTokenClient>;
}

/** Obtains a refresh token from a person and saves it; what was saved, and the scope granted. */
export async function obtainRefreshToken(o: RefreshTokenAuthorization) {
  const { k, context, handoff } = o;
  const device = handoff.flow === 'device' || k.authorization_url === undefined;
  if (device && k.device_authorization_url === undefined) {
    throw new ConfigurationError(
      `invalid configuration for ${o.methodScope}: key 'device_authorization_url' is missing (needed for the device flow)`,
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
  const { description, endpoint, client } = await o.tokenClient();
  if (k.refresh_token !== undefined)
    context.log.info(`${description}: the refresh token obtained replaces the one in 'refresh_token'`);
  const save = async (token: TokenResponse) => {
    if (token.refreshToken === undefined) throw noRefreshToken(description, k.scope);
    await persist(KEY, token.refreshToken);
    return { saved: [KEY], scope: token.scope };
  };
  const flow = { k, context, handoff, methodScope: o.methodScope, parameters, description, endpoint, client, save };
  try {
    return await (device ? deviceFlow(flow) : loopbackFlow(flow));
  } finally {
    await endpoint.close();
  }
}

/** What both ways of obtaining the refresh token share: the client, its token endpoint, and how the token is saved. */
interface Flow extends RefreshTokenClient {
  k: RefreshTokenAuthorizationKeys;
  context: AuthContext;
  handoff: BrowserHandoff;
  methodScope: string;
  parameters: URLSearchParams;
  save(token: TokenResponse): Promise<{ saved: string[]; scope: string | undefined }>;
}

/** The browser comes back to this machine: the authorization code grant with PKCE. */
async function loopbackFlow(f: Flow) {
  const authorizationUrl = f.k.authorization_url!;
  checkTokenEndpointUrl(
    authorizationUrl,
    'authorization_url',
    f.methodScope,
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
    f.methodScope,
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
