import { z } from 'zod';
import { keys } from '../../config/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { CLIENT_CREDENTIALS_AUTH_METHODS, presentsClientCertificate } from './client-authentication.js';
import { oauthClient } from './oauth-client.js';
import { tokenCredential } from '../tokens/index.js';
import { HeaderList } from '../../network/index.js';

/**
 * OAuth 2.0 client credentials grant (RFC 6749 §4.4): the client's own id and secret (or a signed
 * assertion, private_key_jwt) are exchanged for short-lived access tokens, kept fresh by the shared
 * token cache. With `federated_assertion` the client holds no secret at all: the assertion is a token
 * the platform issued to the workload (a Kubernetes service account token on AKS, a CI runner's OIDC
 * token), read from `client_assertion_file`, which the authorization server trusts through a
 * federated credential (Microsoft Entra workload identity, RFC 7523 §2.2). With `tls_client_auth` or
 * `self_signed_tls_client_auth` (RFC 8705) the proof is the `tls_client_*` certificate, presented to
 * the token endpoint in the TLS handshake; a server that binds its tokens to that certificate sees the
 * same one at the API, since the source presents it too. With `dpop`, tokens are bound to a key
 * pair made for this run (RFC 9449, dpop.ts): each token request and each API request carries a proof.
 */
export const clientCredentialsKeys = z
  .object({
    token_url: keys.url(['https:', 'http:']),
    client_id: keys.text(),
    client_secret: keys.optionalText(),
    scope: keys.optionalText(),
    audience: keys.optionalText(),
    token_endpoint_auth: keys.oneOf(CLIENT_CREDENTIALS_AUTH_METHODS, 'client_secret_basic'),
    client_assertion_key: keys.optionalText(),
    client_assertion_key_id: keys.optionalText(),
    client_assertion_certificate: keys.optionalText(),
    client_assertion_file: keys.optionalText(),
    dpop: keys.boolean(false),
  })
  .refine(
    (k) =>
      k.token_endpoint_auth === 'private_key_jwt' ||
      k.token_endpoint_auth === 'federated_assertion' ||
      presentsClientCertificate(k.token_endpoint_auth) ||
      k.client_secret !== undefined,
    {
      path: ['client_secret'],
      message:
        'is missing (needed unless token_endpoint_auth is private_key_jwt, federated_assertion, tls_client_auth or self_signed_tls_client_auth)',
    },
  )
  .refine((k) => k.token_endpoint_auth !== 'federated_assertion' || k.client_assertion_file !== undefined, {
    path: ['client_assertion_file'],
    message: 'is missing (needed when token_endpoint_auth is federated_assertion)',
  })
  .refine((k) => k.token_endpoint_auth !== 'private_key_jwt' || k.client_assertion_key !== undefined, {
    path: ['client_assertion_key'],
    message: 'is missing (needed when token_endpoint_auth is private_key_jwt)',
  });

export default defineAuthMethod({
  name: 'oauth2_client_credentials',
  summary:
    'OAuth 2.0 client credentials: client id and secret (or private_key_jwt, or a federated assertion from a file) exchanged for short-lived access tokens',
  keys: clientCredentialsKeys,
  // A federated assertion is issued and rotated by the platform: nothing in configuration.json to rotate.
  rotationDays: (k) => (k.token_endpoint_auth === 'federated_assertion' ? null : 90),
  async create(k, context) {
    const description = `OAuth 2.0 client credentials for client '${k.client_id}'`;
    const client = oauthClient(k, context, { scope: "auth_method 'oauth2_client_credentials'", description });
    const endpoint = await client.endpoint(k.token_url, 'token_url', {
      invalid_grant: client.secretKey,
      unauthorized_client: 'client_id',
      invalid_scope: 'scope',
      invalid_target: 'audience',
      other: 'client_id',
    });

    return tokenCredential({
      method: 'oauth2_client_credentials',
      description,
      rejectedKey: 'client_id',
      endpoint,
      context,
      dpop: client.dpop,
      obtain: () =>
        endpoint.request('client_credentials', async () => {
          const request = { body: new URLSearchParams(), headers: new HeaderList() };
          if (k.scope) request.body.set('scope', k.scope);
          if (k.audience) {
            // Auth0 and others read `audience`; RFC 8707 servers read `resource`, which must be an
            // absolute URI. Servers ignore parameters they do not know (RFC 6749 §3.2).
            request.body.set('audience', k.audience);
            if (URL.canParse(k.audience)) request.body.set('resource', k.audience);
          }
          await client.authenticate(request);
          return request;
        }),
    });
  },
});
