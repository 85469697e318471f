import { createHash, randomBytes } from 'node:crypto';
import { AuthenticationError, ConfigurationError, isConnectorAuthError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import { describeUrl, isLoopbackHost, unbracketed, HeaderList } from '../../../network/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { BrowserHandoff } from '../../auth-method.js';
import type { ClientAuthentication } from '../index.js';
import { listenForRedirect } from './loopback-redirect.js';
import { oauthErrorName, serverDetail, type TokenEndpoint, type TokenResponse } from '../../token-endpoint/index.js';

/**
 * The authorization code grant (RFC 6749 §4.1) as a native app runs it (RFC 8252): the person
 * signs in and consents in their own browser, which comes back to a loopback redirect URI; the code
 * is exchanged at the token endpoint with PKCE (RFC 7636, S256) and the client's own authentication.
 * The connector never sees the person's password, and a code caught on the way is useless without
 * the verifier, which never leaves this process.
 *
 * `use` receives the tokens while the browser still waits, so its page tells the outcome: what was
 * saved, or the one-line error the terminal shows too.
 */

export interface AuthorizationCodeOptions {
  authorizationUrl: URL;
  clientId: string;
  scope: string | undefined;
  /** Further authorization request parameters (`prompt=consent`, `access_type=offline`, …). */
  parameters: URLSearchParams;
  /** Loopback; without a port, any free one is taken (RFC 8252 §7.3). */
  redirectUri: URL;
  endpoint: TokenEndpoint;
  authenticateClient: ClientAuthentication;
  handoff: BrowserHandoff;
  secrets: SecretRegistry;
  log: Logger;
  /** What the credential is, for messages. */
  description: string;
}

/** Set by the flow itself: a configured parameter may not replace them. */
export const RESERVED_AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1/callback';

/** access_denied, however it arrives (the redirect, or a device code's poll). */
export const DECLINED_HINT =
  "the person signing in declined, or may not grant what 'scope' asks; run authorize again and approve, or ask for less in 'scope'";

/** Which key each error of the authorization endpoint (RFC 6749 §4.1.2.1) points to. */
const AUTHORIZATION_ERROR_KEYS: Record<string, string> = {
  access_denied: 'scope',
  invalid_scope: 'scope',
  unauthorized_client: 'client_id',
  invalid_client: 'client_id',
  unsupported_response_type: 'client_id',
  invalid_request: 'authorization_parameters',
};

export async function authorizationCodeGrant<T>(
  o: AuthorizationCodeOptions,
  use: (token: TokenResponse) => Promise<{ result: T; page: string }>,
): Promise<T> {
  const state = randomBytes(24).toString('base64url');
  const pkce = proofKey(o.secrets);
  const redirect = await listenForRedirect({ uri: o.redirectUri, state, log: o.log, key: 'redirect_uri' });
  let outcome: { ok: boolean; message: string } = {
    ok: false,
    message: 'connector-auth stopped before the authorization finished; see the terminal.',
  };
  try {
    await o.handoff.open(authorizationRequest(o, redirect.uri, state, pkce.challenge));
    o.log.info(
      `${o.description}: waiting for the browser at ${redirect.uri.href} (up to ${Math.round(o.handoff.timeoutMs / 1000)}s)`,
    );
    const params = await withTimeout(redirect.response, o.handoff.timeoutMs, () => notCompleted(o, redirect.uri));
    const code = authorizationCode(o, params, redirect.uri);
    const token = await exchangeCode(o, code, redirect.uri, pkce.verifier);
    const used = await use(token);
    outcome = { ok: true, message: used.page };
    return used.result;
  } catch (error) {
    outcome = {
      ok: false,
      message: `${isConnectorAuthError(error) ? error.message : 'an unexpected error'}. See the terminal.`,
    };
    throw error;
  } finally {
    await redirect.finish(outcome);
  }
}

/** PKCE's verifier (registered as a secret) and its S256 challenge. */
function proofKey(secrets: SecretRegistry): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  // The verifier is what makes a stolen code worthless: it must never be printed.
  secrets.register('code_verifier', verifier);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization endpoint's URL the browser opens: the configured parameters, then the flow's own. */
function authorizationRequest(o: AuthorizationCodeOptions, redirectUri: URL, state: string, challenge: string): URL {
  const url = new URL(o.authorizationUrl.href);
  for (const [name, value] of o.parameters) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', o.clientId);
  url.searchParams.set('redirect_uri', redirectUri.href);
  if (o.scope) url.searchParams.set('scope', o.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url;
}

/** The code of the authorization response (registered as a secret), or the refusal it carries. */
function authorizationCode(o: AuthorizationCodeOptions, params: URLSearchParams, redirectUri: URL): string {
  const error = params.get('error');
  if (error !== null) throw refused(o, error, params.get('error_description'));
  const code = params.get('code');
  if (!code) {
    throw new AuthenticationError(
      `${o.description}: the authorization server came back to ${redirectUri.href} without a code`,
      {
        code: 'authorization_code_missing',
        key: 'authorization_url',
        hint: "check that 'authorization_url' is the authorization endpoint of the server whose 'token_url' is configured",
      },
    );
  }
  o.secrets.register('authorization_code', code);
  return code;
}

function exchangeCode(
  o: AuthorizationCodeOptions,
  code: string,
  redirectUri: URL,
  verifier: string,
): Promise<TokenResponse> {
  return o.endpoint.request('authorization_code', async () => {
    const request = {
      body: new URLSearchParams({ code, redirect_uri: redirectUri.href, code_verifier: verifier }),
      headers: new HeaderList(),
    };
    await o.authenticateClient(request);
    return request;
  });
}

/** `redirect_uri` must be served here: http on a loopback address, not a name the network resolves. */
export function checkRedirectUri(uri: URL, key: string): void {
  const host = unbracketed(uri.hostname).toLowerCase();
  const loopback = host === 'localhost' || (isLoopbackHost(host) && !host.endsWith('.localhost'));
  if (uri.protocol === 'http:' && loopback && uri.search === '' && uri.hash === '') return;
  throw new ConfigurationError(
    `invalid configuration: key '${key}' must be an http:// address on this machine's loopback interface, such as ${DEFAULT_REDIRECT_URI} (got ${describeUrl(uri)}${uri.search || uri.hash ? ' with a query or fragment' : ''})`,
    {
      code: 'redirect_uri_not_loopback',
      key,
      hint: `connector-auth receives the browser itself (RFC 8252 §7.3): register http://127.0.0.1/callback (any port) or a fixed http://127.0.0.1:PORT/callback for the client, and set '${key}' to it`,
    },
  );
}

/** `authorization_parameters`: a URL query string of extra parameters; the flow's own may not be replaced. */
export function parseAuthorizationParameters(text: string | undefined, key: string): URLSearchParams {
  const params = new URLSearchParams(text?.replace(/^\?/, '') ?? '');
  const reserved = [...params.keys()].filter((name) =>
    (RESERVED_AUTHORIZATION_PARAMETERS as readonly string[]).includes(name),
  );
  if (reserved.length === 0) return params;
  throw new ConfigurationError(
    `invalid configuration: key '${key}' may not set ${reserved.map((n) => `'${n}'`).join(', ')}: connector-auth sets ${reserved.length === 1 ? 'it' : 'them'} itself`,
    {
      code: 'authorization_parameter_reserved',
      key,
      hint: `remove ${reserved.join(', ')} from '${key}'${reserved.includes('scope') ? " (scopes go in 'scope')" : ''}`,
    },
  );
}

function refused(o: AuthorizationCodeOptions, error: string, description: string | null): AuthenticationError {
  const name = oauthErrorName(error);
  const key = AUTHORIZATION_ERROR_KEYS[name] ?? 'authorization_url';
  const detail = serverDetail(description, o.secrets);
  const hint = name === 'access_denied' ? DECLINED_HINT : `check '${key}'`;
  return new AuthenticationError(
    `${o.description}: the authorization server refused the authorization: ${name}${detail}`,
    {
      code: `oauth_${name}`,
      key,
      hint,
    },
  );
}

function notCompleted(o: AuthorizationCodeOptions, uri: URL): AuthenticationError {
  const seconds = Math.round(o.handoff.timeoutMs / 1000);
  // What the client's registration must hold: the configured URI, whose port (when it names none) is any.
  const registered = o.redirectUri.port === '' ? `${o.redirectUri.href} (any port)` : o.redirectUri.href;
  return new AuthenticationError(
    `${o.description}: no authorization response came back to ${uri.href} within ${seconds}s`,
    {
      code: 'authorization_not_completed',
      key: 'redirect_uri',
      hint:
        `finish signing in within the time (--timeout SECONDS gives more); if the browser showed an error page instead, ` +
        `it is usually that ${registered} is not a registered redirect URI of client '${o.clientId}': register it, or set 'redirect_uri' to one that is`,
    },
  );
}

async function withTimeout<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(error()), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
