import type { SecretRegistry } from '../../secrets/index.js';
import type { AssertionCertificate } from './assertion-certificate.js';
import { newJwtId, secretSigningKey, signJwt, type SigningKey } from './signing-key.js';
import type { TokenRequest } from '../token-endpoint/index.js';

/**
 * How an OAuth client proves itself to the token endpoint (RFC 6749 §2.3, RFC 7523 §2.2):
 * `client_secret_basic` (the default, as the RFC asks servers to support it), `client_secret_post`,
 * `client_secret_jwt` (an assertion signed with the secret, HS256: the secret itself never travels),
 * `private_key_jwt` (a fresh signed assertion for every request), `federated_assertion` (an
 * assertion another issuer signed, read from the file the platform keeps fresh: workload identity
 * federation), `tls_client_auth` and `self_signed_tls_client_auth` (RFC 8705: the client certificate
 * presented in the TLS handshake is the proof, checked against a CA-issued subject or a registered
 * certificate; the request only names the client), or `none` (a public client).
 */

/** RFC 8705 mutual-TLS client authentication: the certificate of the `tls_client_*` keys is the proof. */
export const MTLS_AUTH_METHODS = ['tls_client_auth', 'self_signed_tls_client_auth'] as const;
export const TOKEN_ENDPOINT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
  'private_key_jwt',
  ...MTLS_AUTH_METHODS,
] as const;
/** The client credentials grant also takes a federated assertion: a workload's identity, no secret at all. */
export const CLIENT_CREDENTIALS_AUTH_METHODS = [...TOKEN_ENDPOINT_AUTH_METHODS, 'federated_assertion'] as const;

/** Whether the token endpoint must be shown the client certificate: its TLS connection is the client's proof. */
export function presentsClientCertificate(method: string): boolean {
  return (MTLS_AUTH_METHODS as readonly string[]).includes(method);
}
export type TokenEndpointAuth = (typeof CLIENT_CREDENTIALS_AUTH_METHODS)[number] | 'none';

const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientAuthenticationOptions {
  method: TokenEndpointAuth;
  clientId: string;
  clientSecret?: string | undefined;
  assertionKey?: SigningKey | undefined;
  assertionKeyId?: string | undefined;
  /** With `private_key_jwt`: the key's certificate, named in the header by thumbprint (Entra ID). */
  assertionCertificate?: AssertionCertificate | undefined;
  /** With `federated_assertion`: reads the assertion file now (token-file.ts). */
  readAssertion?: (() => Promise<string>) | undefined;
  /** The assertion's audience: the token endpoint URL (RFC 7523 §3, item 3). */
  tokenUrl: URL;
  secrets: SecretRegistry;
  now: () => number;
}

/** Lifetime of a client assertion: it is used once, seconds after it is made. */
const ASSERTION_LIFETIME_SECONDS = 60;

/** RFC 6749 §2.3.1: id and secret are form-encoded before they are joined for Basic. */
const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

export type ClientAuthentication = (request: TokenRequest) => Promise<void>;

export function clientAuthentication(o: ClientAuthenticationOptions): ClientAuthentication {
  switch (o.method) {
    case 'client_secret_basic': {
      const secret = o.clientSecret ?? '';
      const pair = `${formEncode(o.clientId)}:${formEncode(secret)}`;
      const header = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
      // The header's base64 of "id:secret" is a form of the secret no raw match would catch.
      o.secrets.registerForms('client_secret', [header.slice(6), pair, formEncode(secret)]);
      return async ({ headers }) => {
        headers.set('authorization', header);
      };
    }
    case 'client_secret_post': {
      const secret = o.clientSecret ?? '';
      o.secrets.registerForms('client_secret', [formEncode(secret)]);
      return async ({ body }) => {
        body.set('client_id', o.clientId);
        body.set('client_secret', secret);
      };
    }
    // OpenID Connect Core §9: HMAC SHA-256 keyed with the secret's UTF-8 bytes.
    case 'client_secret_jwt':
      return signedAssertion(o, secretSigningKey(o.clientSecret ?? ''), {});
    case 'private_key_jwt':
      return signedAssertion(o, o.assertionKey!, { kid: o.assertionKeyId, ...o.assertionCertificate?.header });
    case 'federated_assertion': {
      const read = o.readAssertion!;
      // Read for every request: the platform rewrites the file before the assertion expires.
      return async ({ body }) => {
        body.set('client_id', o.clientId);
        body.set('client_assertion_type', JWT_BEARER_ASSERTION);
        body.set('client_assertion', await read());
      };
    }
    // The TLS connection carries the proof (RFC 8705 §2): the request names the client, as a public one does.
    case 'tls_client_auth':
    case 'self_signed_tls_client_auth':
    case 'none':
      return async ({ body }) => {
        body.set('client_id', o.clientId);
      };
  }
}

/**
 * RFC 7523 §2.2 client authentication with an assertion made here, fresh for every request (servers
 * keep a replay cache by `jti`): `iss` = `sub` = the client, `aud` = the token endpoint, 60 seconds,
 * and `nbf` as well, which Entra ID lists among the claims it reads.
 */
function signedAssertion(
  o: ClientAuthenticationOptions,
  key: SigningKey,
  header: Parameters<typeof signJwt>[2],
): ClientAuthentication {
  return async ({ body }) => {
    const iat = Math.floor(o.now() / 1000);
    const claims = {
      iss: o.clientId,
      sub: o.clientId,
      aud: o.tokenUrl.href,
      jti: newJwtId(),
      iat,
      nbf: iat,
      exp: iat + ASSERTION_LIFETIME_SECONDS,
    };
    body.set('client_id', o.clientId);
    body.set('client_assertion_type', JWT_BEARER_ASSERTION);
    body.set('client_assertion', await signJwt(key, claims, header, o.secrets, 'client_assertion'));
  };
}
