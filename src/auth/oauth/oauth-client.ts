import { ConfigurationError } from '../../errors/index.js';
import type { AuthContext } from '../auth-method.js';
import { loadAssertionCertificate } from './assertion-certificate.js';
import {
  clientAuthentication,
  presentsClientCertificate,
  type ClientAuthentication,
  type TokenEndpointAuth,
} from './client-authentication.js';
import {
  createDpopProver,
  type DpopProver,
  checkTokenEndpointUrl,
  requireClientCertificate,
  tokenEndpointFor,
  type OAuthErrorKeys,
  type TokenEndpoint,
} from '../token-endpoint/index.js';
import { loadSigningKey } from './signing-key.js';
import { tokenFileReader } from '../tokens/index.js';

/**
 * The client's side of an OAuth token endpoint, read from the keys the OAuth methods share
 * (oauth2_client_credentials, oauth2_refresh_token): how the client proves itself
 * (client-authentication.ts), which key a refused client authentication names, and the server's
 * endpoints as this client talks to them: its TLS certificate presented (RFC 8705), the run's DPoP
 * key (RFC 9449). Everything
 * here is checked before any request: key material parsed, certificates matched, files named.
 */

export interface OAuthClientKeys {
  token_url: URL;
  client_id: string;
  client_secret?: string | undefined;
  token_endpoint_auth: Exclude<TokenEndpointAuth, 'none'>;
  client_assertion_key?: string | undefined;
  client_assertion_key_id?: string | undefined;
  client_assertion_certificate?: string | undefined;
  client_assertion_file?: string | undefined;
  dpop: boolean;
}

export interface OAuthClient {
  /** What the token endpoint's `invalid_client` names: the secret, the key, the file or the certificate. */
  readonly secretKey: string;
  readonly authenticate: ClientAuthentication;
  /** A key pair made for this run when `dpop` is true: DPoP-bound tokens are useless without it. */
  readonly dpop: DpopProver | undefined;
  /**
   * An endpoint of the server as this client talks to it: its certificate presented (RFC 8705), its
   * DPoP key used unless `dpop: false` (the device authorization endpoint takes no proof), and
   * `invalid_client` naming `secretKey`.
   */
  endpoint(
    url: URL,
    urlKey: string,
    errorKeys: Pick<
      OAuthErrorKeys,
      'invalid_grant' | 'unauthorized_client' | 'invalid_scope' | 'invalid_target' | 'other'
    >,
    options?: { dpop?: boolean },
  ): Promise<TokenEndpoint>;
}

export function oauthClient(
  k: OAuthClientKeys,
  context: AuthContext,
  o: { scope: string; description: string },
): OAuthClient {
  checkTokenEndpointUrl(k.token_url, 'token_url', o.scope);
  const mtls = presentsClientCertificate(k.token_endpoint_auth);
  if (mtls) requireClientCertificate(context.tls, `token_endpoint_auth '${k.token_endpoint_auth}'`);
  const method = authenticationMethod(k);
  const secretKey = secretKeyOf(method);
  checkDpop(k, method, o.scope);
  const authenticate = clientAuthenticationOf(k, method, context, o.description);
  const dpop = k.dpop ? createDpopProver(context.now) : undefined;
  return {
    secretKey,
    authenticate,
    dpop,
    endpoint: (url, urlKey, errorKeys, options = {}) =>
      tokenEndpointFor(context, {
        url,
        urlKey,
        credential: o.description,
        presentClientCertificate: mtls,
        ...(dpop && options.dpop !== false ? { dpop } : {}),
        errorKeys: { ...errorKeys, invalid_client: secretKey },
      }),
  };
}

/** The configured method; without a secret, key or certificate the client is public (RFC 6749 §2.1): it only names itself. */
function authenticationMethod(k: OAuthClientKeys): TokenEndpointAuth {
  const configured = k.token_endpoint_auth;
  const proofless =
    configured !== 'private_key_jwt' && configured !== 'federated_assertion' && !presentsClientCertificate(configured);
  return proofless && k.client_secret === undefined ? 'none' : configured;
}

/** The key the token endpoint's `invalid_client` names: the secret, the key, the file or the certificate. */
function secretKeyOf(method: TokenEndpointAuth): string {
  if (method === 'private_key_jwt') return 'client_assertion_key';
  if (method === 'federated_assertion') return 'client_assertion_file';
  if (presentsClientCertificate(method)) return 'tls_client_certificate';
  return method === 'none' ? 'client_id' : 'client_secret';
}

/** RFC 9449 §5: a public client's refresh token is bound to the DPoP key, which lives for one run. */
function checkDpop(k: OAuthClientKeys, method: TokenEndpointAuth, scope: string): void {
  if (k.dpop && method === 'none')
    throw new ConfigurationError(
      `invalid configuration for ${scope}: 'dpop' needs a confidential client; a public client's refresh token would be bound to a key that ends with the run`,
      {
        code: 'dpop_public_client',
        key: 'dpop',
        hint: "remove 'dpop', or authenticate the client ('client_secret', 'private_key_jwt' or a TLS certificate)",
      },
    );
}

/** How the client proves itself, its key material parsed and its files named now. */
function clientAuthenticationOf(
  k: OAuthClientKeys,
  method: TokenEndpointAuth,
  context: AuthContext,
  description: string,
): ClientAuthentication {
  const assertionKey =
    method === 'private_key_jwt'
      ? loadSigningKey(k.client_assertion_key!, 'client_assertion_key', context.secrets)
      : undefined;
  return clientAuthentication({
    method,
    clientId: k.client_id,
    clientSecret: k.client_secret,
    assertionKey,
    assertionKeyId: k.client_assertion_key_id,
    assertionCertificate: assertionKey
      ? loadAssertionCertificate(k.client_assertion_certificate, k.client_assertion_key!, assertionKey, context.now)
      : undefined,
    readAssertion: method === 'federated_assertion' ? federatedAssertion(k, context, description) : undefined,
    tokenUrl: k.token_url,
    secrets: context.secrets,
    now: context.now,
  });
}

function federatedAssertion(k: OAuthClientKeys, context: AuthContext, description: string): () => Promise<string> {
  return tokenFileReader({
    file: k.client_assertion_file!.trim(),
    key: 'client_assertion_file',
    noun: 'client assertion',
    name: 'client_assertion',
    whereFrom: "on AKS with workload identity, the pod's AZURE_FEDERATED_TOKEN_FILE",
    description,
    secrets: context.secrets,
  });
}
