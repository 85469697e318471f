import { X509Certificate, createHash, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCa, issueClient, issueServer } from './certificates.js';
import { certificateCredentialCheck } from './entra-certificate-credential.js';
import { Browser, type Page } from '../helpers/browser.js';
import { workloadFederation, type WorkloadIssuer } from './workload-federation.js';

/**
 * A real OAuth 2.0 authorization server — panva's `oidc-provider` (v9) — on 127.0.0.1, with:
 *
 * - clients for client credentials with `client_secret_basic`, `client_secret_post`,
 *   `client_secret_jwt` and `private_key_jwt` (an EC P-256 key whose public half is in the client's JWKS);
 * - a client with refresh tokens and rotation on (`rotateRefreshToken: true`), registered as a native
 *   app (loopback redirect URIs on any port, RFC 8252 §7.3); a refresh token comes either from a real
 *   authorization code flow (a browser drives /auth, the person's sign-in and consent are played by
 *   the front server, see `decide`) or, quicker, from the provider's own models (Grant +
 *   RefreshToken), the state that flow leaves;
 * - JWT access tokens (resource indicators, `accessTokenFormat: 'jwt'`) for one resource server;
 * - a registered JWT bearer grant (RFC 7523 §2.1) that verifies the assertion against the public key
 *   of a service account (one RSA, one EC) and issues an access token;
 * - a client that authenticates with a federated assertion (Entra workload identity): its
 *   `client_assertion` is a service account token of the peer's own cluster issuer, checked by the
 *   front server as Entra checks a federated credential (workload-federation.ts), and the request
 *   then reaches oidc-provider authenticated as that client;
 * - a client that authenticates with a certificate credential as Entra ID checks one
 *   (entra-certificate-credential.ts: the assertion names the certificate by thumbprint), checked by
 *   the front server, which then lets the request reach oidc-provider authenticated as that client;
 * - a protected resource under `/api/` that verifies the bearer JWT with the provider's public keys
 *   and answers 200 or 401;
 * - with `mtls`, RFC 8705: an HTTPS front that asks for a client certificate and hands it to the
 *   provider's mTLS feature (as a TLS-terminating proxy does, in a header the plain front strips), two
 *   clients that authenticate with it (`tls_client_auth`: a certificate of the peer's CA with the
 *   registered subject; `self_signed_tls_client_auth`: the certificate in the client's JWKS), both
 *   with certificate-bound access tokens (`cnf.x5t#S256`), and the protected resource behind the same
 *   front, which refuses a bound token presented without its certificate.
 *
 * Everything goes through a small front server (the URL tests see) that forwards to the provider on
 * its own port: it counts token requests per grant type, injects faults (status, Retry-After, delay),
 * and can strip `expires_in` from token responses. It also adds `client_id` (the assertion's `iss`)
 * to a JWT bearer request that carries no client authentication: Google-style token endpoints
 * accept a bare assertion, while oidc-provider's token endpoint always identifies a client first.
 */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const CLIENT_ASSERTION_JWT = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface TokenFault {
  status: number;
  /** Retry-After header value (seconds or an HTTP date). */
  retryAfter?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  body?: Record<string, unknown>;
  /** A body that is not JSON (a gateway's or a Basic filter's answer), sent with `headers` instead of the JSON one. */
  text?: string;
  headers?: Record<string, string>;
}

export interface ServiceAccountFixture {
  email: string;
  keyId: string;
  /** The JSON key file's content, as a configuration would hold it. */
  json: string;
  /** The same key with another private key the server does not know (same email and key id). */
  unknownKeyJson: string;
}

export interface VerifiedAssertion {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** A client certificate and its key (PEM), as configuration.json holds them in `tls_client_*`. */
export interface ClientCertificateFixture {
  certificatePem: string;
  privateKeyPem: string;
}

export interface MtlsFixture {
  /** The HTTPS front: the token endpoint and the protected resource that check the certificate. */
  tokenUrl: string;
  apiUrl: string;
  /** The CA of the front's server certificate (localhost), for `tls_ca_certificate`. */
  caPem: string;
  clients: {
    /** `tls_client_auth`: a certificate of the peer's CA whose subject is the registered one. */
    pki: { id: string } & ClientCertificateFixture;
    /** `self_signed_tls_client_auth`: a self-signed certificate registered in the client's JWKS. */
    selfSigned: { id: string } & ClientCertificateFixture;
    /** Refresh tokens (issueRefreshToken(id)), `tls_client_auth` with the `pki` certificate. */
    refresh: { id: string } & ClientCertificateFixture;
  };
  /** The registered subject, from another CA; and the peer's CA, for another subject. */
  strangers: { otherCa: ClientCertificateFixture; otherSubject: ClientCertificateFixture };
  /** SHA-256 thumbprint (base64url) of a certificate, as `cnf.x5t#S256` carries it. */
  thumbprint(certificatePem: string): string;
  /** The `cnf.x5t#S256` of the access tokens the mTLS front handed out, in order. */
  boundTokens: string[];
}

export interface OidcPeer {
  /** Issuer and front server, e.g. http://127.0.0.1:43123 */
  url: string;
  tokenUrl: string;
  /** Base URL of the protected resource, for the REST source's base_url. */
  apiUrl: string;
  clients: {
    basic: { id: string; secret: string };
    post: { id: string; secret: string };
    /** client_secret_jwt: an HS256 assertion keyed with the secret. */
    secretJwt: { id: string; secret: string };
    privateKeyJwt: { id: string; keyPem: string; keyId: string };
    refresh: { id: string; secret: string };
    /** Trusts service account tokens of `workload`'s issuer and subject; holds no secret of its own. */
    federated: { id: string };
    /** An Entra-style certificate credential: the key, its registered certificate, and a pair the app does not know. */
    certificate: {
      id: string;
      keyPem: string;
      certificatePem: string;
      unregistered: { keyPem: string; certificatePem: string };
    };
  };
  /** The cluster whose service account tokens the federated client presents. */
  workload: WorkloadIssuer;
  serviceAccounts: { rsa: ServiceAccountFixture; ec: ServiceAccountFixture };
  /** A fresh refresh token of the refresh client (rotation on), or of another client that has the grant. */
  issueRefreshToken(clientId?: string): Promise<string>;
  /**
   * What the person at the interaction pages does: sign in as an account and approve what the
   * client asks (the default), or decline (the provider then redirects with access_denied).
   */
  decide(decision: 'approve' | 'deny'): void;
  /** The authorization requests the provider received (their query parameters), in order. */
  authorizationRequests: URLSearchParams[];
  /** Device flow: the device authorization endpoint and the polling interval it announces (default 1 s). */
  deviceAuthorizationUrl: string;
  setDeviceInterval(seconds: number): void;
  /** When each device code poll reached the token endpoint (ms since the epoch), in order. */
  devicePolls: number[];
  /** Whether a refresh token is still usable at the provider (not consumed, revoked or expired). */
  refreshTokenActive(value: string): Promise<boolean>;
  /** Token requests received (faulted ones included), for one grant type or all. */
  tokenRequests(grantType?: string): number;
  resetCounts(): void;
  /** The next token requests get these answers, one each, in order. */
  failNextTokenRequests(...faults: TokenFault[]): void;
  /** The next token request is answered as usual, but only after this many milliseconds (a slow server). */
  delayNextTokenRequest(ms: number): void;
  /** Every token request gets this answer until called again with undefined. */
  failAllTokenRequests(fault: TokenFault | undefined): void;
  setAccessTokenTtl(seconds: number): void;
  /** Strip `expires_in` from token responses (a server that does not say). */
  omitExpiresIn(omit: boolean): void;
  /** JWT access tokens (the default) or opaque ones. */
  setAccessTokenFormat(format: 'jwt' | 'opaque'): void;
  /** Every secret the peer has seen pass: tokens it issued, assertions and client secrets it received. */
  seen: { accessTokens: string[]; refreshTokens: string[]; assertions: string[]; deviceCodes: string[] };
  /** The next n requests to the protected resource get 401 whatever their token. */
  rejectNextResourceRequests(n: number): void;
  resourceRequests: { path: string; status: number }[];
  assertions: VerifiedAssertion[];
  /** With `start({ mtls: true })`. */
  mtls: MtlsFixture | undefined;
  /** Whether the token endpoint demands a DPoP nonce (`use_dpop_nonce` first, as Okta does). */
  requireDpopNonce(on: boolean): void;
  /**
   * Whether the protected resource demands its own DPoP nonce (a 401 with `DPoP-Nonce` first); with
   * `rotate`, every successful answer carries the next nonce, which the next request must use.
   */
  requireResourceDpopNonce(on: boolean, options?: { rotate?: boolean }): void;
  /** DPoP proofs the protected resource accepted (method and URL), in order. */
  dpopProofs: { htm: string; htu: string }[];
  stop(): Promise<void>;
}

/** Headers the mTLS front sets for the provider, as a TLS-terminating proxy would; stripped from anything else. */
const CLIENT_CERT_HEADER = 'x-peer-client-cert';
const CLIENT_VERIFY_HEADER = 'x-peer-client-verify';
const MTLS_SUBJECT = 'connector.peer.test';

const RESOURCE = 'https://api.peer.test/';
const SCOPE = 'api:read';
const ACCOUNT = 'user-1';

/**
 * `ownInteractionPages`: the person signs in and consents on oidc-provider's own login and consent
 * pages (its devInteractions: any login name, a Sign-in button, a Continue button, a Cancel link), as
 * a real browser shows them, instead of the front deciding for them (`decide`).
 */
export async function start(
  options: { accessTokenTtlSeconds?: number; mtls?: boolean; ownInteractionPages?: boolean } = {},
): Promise<OidcPeer> {
  // The package ships no type declarations; a computed specifier keeps TypeScript from asking for them.
  const packageName = 'oidc-provider';

  let Provider: any;

  let errors: any;
  try {
    ({ default: Provider, errors } = await import(packageName));
  } catch (cause) {
    throw new Error('the oidc-provider peer needs the npm package oidc-provider (a devDependency): run `npm install`', {
      cause,
    });
  }
  const jose = await import('jose');

  let ttl = options.accessTokenTtlSeconds ?? 300;
  let format: 'jwt' | 'opaque' = 'jwt';
  const seen: OidcPeer['seen'] = { accessTokens: [], refreshTokens: [], assertions: [], deviceCodes: [] };
  let stripExpiresIn = false;
  let rejectResource = 0;
  const counts = new Map<string, number>();
  const nextFaults: TokenFault[] = [];
  let everyFault: TokenFault | undefined;
  const resourceRequests: OidcPeer['resourceRequests'] = [];
  const authorizationRequests: URLSearchParams[] = [];
  let decision: 'approve' | 'deny' = 'approve';
  let deviceInterval = 1;
  let nextDelayMs = 0;
  const devicePolls: number[] = [];
  const assertions: VerifiedAssertion[] = [];

  // Front server first: its port is the issuer every token and assertion names.
  const front = createServer();
  await listen(front);
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const tokenUrl = `${url}/token`;

  const providerRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const providerJwk = {
    ...(providerRsa.privateKey.export({ format: 'jwk' }) as Record<string, unknown>),
    kid: 'peer-rsa',
    use: 'sig',
    alg: 'RS256',
  };
  const publicJwks = jose.createLocalJWKSet({
    keys: [{ ...(providerRsa.publicKey.export({ format: 'jwk' }) as object), kid: 'peer-rsa', alg: 'RS256' }],
  });

  const clientJwtKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const clients = {
    basic: { id: 'cc-basic', secret: `basic-${randomBytes(18).toString('base64url')}` },
    post: { id: 'cc-post', secret: `post-${randomBytes(18).toString('base64url')}` },
    secretJwt: { id: 'cc-secret-jwt', secret: `jwt-${randomBytes(32).toString('base64url')}` },
    privateKeyJwt: {
      id: 'cc-jwt',
      keyPem: clientJwtKey.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
      keyId: 'cc-jwt-key-1',
    },
    refresh: { id: 'refresh-client', secret: `refresh-${randomBytes(18).toString('base64url')}` },
    federated: { id: 'cc-federated' },
    certificate: certificateCredential(),
  };
  const mtlsMaterial = options.mtls ? mtlsCertificates() : undefined;
  let requireDpopNonce = false;
  let requireResourceNonce = false;
  let rotateResourceNonce = false;
  let resourceNonce = randomBytes(16).toString('base64url');
  const proofNonce = (req: IncomingMessage): unknown => {
    try {
      return typeof req.headers.dpop === 'string' ? jose.decodeJwt(req.headers.dpop).nonce : undefined;
    } catch {
      return undefined;
    }
  };
  const dpopProofs: { htm: string; htu: string }[] = [];
  const boundTokens: string[] = [];
  const federation = await workloadFederation();
  // How the front server authenticates the federated client to oidc-provider once its assertion
  // passed: a secret only the peer knows.
  const federatedSecret = `inner-${randomBytes(18).toString('base64url')}`;
  const federatedInner = `Basic ${Buffer.from(`${clients.federated.id}:${federatedSecret}`).toString('base64')}`;
  const certificateSecret = `inner-${randomBytes(18).toString('base64url')}`;
  const certificateInner = `Basic ${Buffer.from(`${clients.certificate.id}:${certificateSecret}`).toString('base64')}`;
  const entraCertificates = await certificateCredentialCheck({
    clientId: clients.certificate.id,
    certificates: [clients.certificate.certificatePem],
    tokenUrl,
  });

  const accounts = new Map<string, { keyId: string; publicKey: KeyObject }>();
  const serviceAccount = (name: string, type: 'rsa' | 'ec'): ServiceAccountFixture => {
    const make = () =>
      type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pair = make();
    const email = `${name}@peer-project.iam.example`;
    const keyId = randomBytes(20).toString('hex');
    accounts.set(email, { keyId, publicKey: pair.publicKey });
    const json = (privateKey: KeyObject) =>
      JSON.stringify({
        type: 'service_account',
        project_id: 'peer-project',
        private_key_id: keyId,
        private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
        client_email: email,
        client_id: '1234567890',
        token_uri: tokenUrl,
      });
    return { email, keyId, json: json(pair.privateKey), unknownKeyJson: json(make().privateKey) };
  };
  const serviceAccounts = { rsa: serviceAccount('connector', 'rsa'), ec: serviceAccount('ec-connector', 'ec') };

  const resourceServerInfo = () => ({
    scope: SCOPE,
    audience: RESOURCE,
    accessTokenTTL: ttl,
    accessTokenFormat: format,
    jwt: { sign: { alg: 'RS256' } },
  });

  const provider = new Provider(url, {
    clients: [
      {
        client_id: clients.basic.id,
        client_secret: clients.basic.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPE,
      },
      {
        client_id: clients.federated.id,
        client_secret: federatedSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPE,
      },
      {
        client_id: clients.certificate.id,
        client_secret: certificateSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPE,
      },
      {
        client_id: clients.secretJwt.id,
        client_secret: clients.secretJwt.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_jwt',
        scope: SCOPE,
      },
      {
        client_id: clients.post.id,
        client_secret: clients.post.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: SCOPE,
      },
      {
        client_id: clients.privateKeyJwt.id,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: {
          keys: [{ ...(clientJwtKey.publicKey.export({ format: 'jwk' }) as object), kid: clients.privateKeyJwt.keyId }],
        },
        scope: SCOPE,
      },
      {
        client_id: clients.refresh.id,
        client_secret: clients.refresh.secret,
        grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE],
        response_types: ['code'],
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      ...(mtlsMaterial
        ? [
            {
              client_id: 'cc-mtls',
              grant_types: ['client_credentials'],
              response_types: [],
              redirect_uris: [],
              token_endpoint_auth_method: 'tls_client_auth',
              tls_client_auth_subject_dn: `CN=${MTLS_SUBJECT},O=connector-auth tests`,
              tls_client_certificate_bound_access_tokens: true,
              scope: SCOPE,
            },
            {
              client_id: 'refresh-mtls',
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              application_type: 'native',
              redirect_uris: ['http://127.0.0.1/callback'],
              token_endpoint_auth_method: 'tls_client_auth',
              tls_client_auth_subject_dn: `CN=${MTLS_SUBJECT},O=connector-auth tests`,
              tls_client_certificate_bound_access_tokens: true,
            },
            {
              client_id: 'cc-mtls-self',
              grant_types: ['client_credentials'],
              response_types: [],
              redirect_uris: [],
              token_endpoint_auth_method: 'self_signed_tls_client_auth',
              jwks: { keys: [certificateJwk(mtlsMaterial.selfSigned.certificatePem)] },
              tls_client_certificate_bound_access_tokens: true,
              scope: SCOPE,
            },
          ]
        : []),
      ...[...accounts.keys()].map((email) => ({
        client_id: email,
        grant_types: [JWT_BEARER],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'none',
      })),
    ],
    jwks: { keys: [providerJwk] },
    clientAuthMethods: [
      'client_secret_basic',
      'client_secret_jwt',
      'client_secret_post',
      'private_key_jwt',
      'none',
      ...(mtlsMaterial ? ['tls_client_auth', 'self_signed_tls_client_auth'] : []),
    ],
    cookies: { keys: [randomBytes(16).toString('hex')] },
    scopes: ['openid', 'offline_access', SCOPE],
    rotateRefreshToken: true,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    ttl: {
      AccessToken: () => ttl,
      ClientCredentials: () => ttl,
      RefreshToken: 14 * 86400,
      Grant: 14 * 86400,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 86400,
    },
    features: {
      devInteractions: { enabled: options.ownInteractionPages === true },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      // DPoP (RFC 9449) as Okta runs it when asked: a nonce required on the first request.
      dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => requireDpopNonce },
      ...(mtlsMaterial
        ? {
            mTLS: {
              enabled: true,
              certificateBoundAccessTokens: true,
              tlsClientAuth: true,
              selfSignedTlsClientAuth: true,
              getCertificate: (ctx: { get(name: string): string }) =>
                decodeURIComponent(ctx.get(CLIENT_CERT_HEADER)) || undefined,
              certificateAuthorized: (ctx: { get(name: string): string }) =>
                ctx.get(CLIENT_VERIFY_HEADER) === 'SUCCESS',
              certificateSubjectMatches: (ctx: { get(name: string): string }, property: string, expected: string) =>
                property === 'tls_client_auth_subject_dn' &&
                sameDn(new X509Certificate(decodeURIComponent(ctx.get(CLIENT_CERT_HEADER))).subject, expected),
            },
          }
        : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== RESOURCE) throw new errors.InvalidTarget();
          return resourceServerInfo();
        },
      },
    },
  } as never);

  provider.registerGrantType(
    JWT_BEARER,
    async (ctx: any) => {
      const assertion: unknown = ctx.oidc.params.assertion;
      if (typeof assertion !== 'string') throw new errors.InvalidRequest('missing assertion');
      let header: Record<string, unknown>;
      let claims: Record<string, unknown>;
      try {
        header = jose.decodeProtectedHeader(assertion) as Record<string, unknown>;
        claims = jose.decodeJwt(assertion) as Record<string, unknown>;
      } catch {
        throw new errors.InvalidGrant('assertion is not a JWT');
      }
      const account = accounts.get(String(claims.iss));
      if (!account || account.keyId !== header.kid) throw new errors.InvalidGrant('unknown service account or key id');
      if (ctx.oidc.client.clientId !== claims.iss) throw new errors.InvalidGrant('client mismatch');
      try {
        await jose.jwtVerify(assertion, account.publicKey, {
          issuer: String(claims.iss),
          subject: String(claims.iss),
          audience: [tokenUrl, url],
          requiredClaims: ['iat', 'exp'],
          algorithms: ['RS256', 'ES256'],
        });
      } catch (error) {
        throw new errors.InvalidGrant(`assertion rejected: ${(error as Error).message}`);
      }
      if ((claims.exp as number) - (claims.iat as number) > 3600)
        throw new errors.InvalidGrant('assertion lives longer than an hour');
      assertions.push({ header, payload: claims });
      const token = new ctx.oidc.provider.ClientCredentials({ client: ctx.oidc.client, scope: SCOPE });
      token.resourceServer = new ctx.oidc.provider.ResourceServer(RESOURCE, resourceServerInfo());
      const value = await token.save();
      ctx.body = { access_token: value, expires_in: token.expiration, token_type: 'Bearer', scope: SCOPE };
    },
    ['assertion', 'scope'],
  );

  const inner = createServer(provider.callback());
  await listen(inner);
  const innerPort = (inner.address() as AddressInfo).port;

  /**
   * Valid, and what it is bound to, if anything: a certificate thumbprint (RFC 8705 §3) or a DPoP key
   * thumbprint (RFC 9449 §6); undefined when not valid.
   */
  const verifyAccessToken = async (
    token: string,
  ): Promise<{ boundTo: string | undefined; jkt: string | undefined } | undefined> => {
    if (token.split('.').length !== 3) {
      // Opaque: the provider's own stores know it, as introspection would tell a remote resource.
      const found = (await provider.ClientCredentials.find(token)) ?? (await provider.AccessToken.find(token));
      return found !== undefined && !found.isExpired
        ? { boundTo: found['x5t#S256'] as string | undefined, jkt: found.jkt as string | undefined }
        : undefined;
    }
    try {
      const { payload } = await jose.jwtVerify(token, publicJwks, { issuer: url, audience: RESOURCE });
      const cnf = payload.cnf as { 'x5t#S256'?: string; jkt?: string } | undefined;
      return { boundTo: cnf?.['x5t#S256'], jkt: cnf?.jkt };
    } catch {
      return undefined;
    }
  };

  /** RFC 9449 §4.3 and §7.1, as a resource server checks a proof: key, method, URL, token hash, freshness, and the token's key. */
  const dpopProofFor = async (req: IncomingMessage, at: URL, token: string, jkt: string): Promise<boolean> => {
    const proof = req.headers.dpop;
    if (typeof proof !== 'string') return false;
    try {
      const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: ['ES256', 'EdDSA'],
      });
      const htu = new URL(at);
      htu.search = '';
      const fresh = typeof payload.iat === 'number' && Math.abs(Date.now() / 1000 - payload.iat) <= 300;
      const ath = createHash('sha256').update(token).digest('base64url');
      const ok =
        fresh &&
        payload.htm === req.method &&
        payload.htu === htu.href &&
        payload.ath === ath &&
        (await jose.calculateJwkThumbprint(protectedHeader.jwk!)) === jkt;
      if (ok) dpopProofs.push({ htm: String(payload.htm), htu: String(payload.htu) });
      return ok;
    } catch {
      return false;
    }
  };

  front.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String((error as Error)?.message ?? error));
    });
  });

  // RFC 8705's front: TLS that asks for a client certificate and lets any through, so that the
  // provider (certificateAuthorized) and the resource (the token's binding) decide, as behind a
  // TLS-terminating proxy with `ssl_verify_client optional_no_ca`.
  const mtlsFront = mtlsMaterial
    ? createHttpsServer({
        key: mtlsMaterial.server.privateKeyPem,
        cert: mtlsMaterial.server.certificatePem,
        ca: mtlsMaterial.ca.certificatePem,
        requestCert: true,
        rejectUnauthorized: false,
      })
    : undefined;
  if (mtlsFront) {
    mtlsFront.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket as TLSSocket;
      const raw = socket.getPeerCertificate().raw as Buffer | undefined;
      const pem = raw ? new X509Certificate(raw).toString() : undefined;
      void handle(req, res, { pem, verified: socket.authorized }).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String((error as Error)?.message ?? error));
      });
    });
    await listen(mtlsFront);
  }
  const mtlsUrl = mtlsFront ? `https://localhost:${(mtlsFront.address() as AddressInfo).port}` : '';

  /** `tls`: the client certificate of a request that came through the mTLS front. */
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    tls?: { pem: string | undefined; verified: boolean },
  ): Promise<void> {
    const path = new URL(req.url ?? '/', url).pathname;
    const body = await readAll(req);
    if (path.startsWith('/api/')) return resource(req, res, path, tls?.pem ? thumbprint(tls.pem) : undefined);
    if (path === '/auth') authorizationRequests.push(new URL(req.url ?? '/', url).searchParams);
    if (path === '/device/auth' && req.method === 'POST') {
      // oidc-provider announces no interval (clients then wait 5 s, RFC 8628 §3.2); the peer says how long.
      const forwarded = await forward(req, body);
      const json =
        forwarded.status === 200
          ? { ...(JSON.parse(forwarded.body.toString('utf8')) as { device_code: string }), interval: deviceInterval }
          : undefined;
      if (json) seen.deviceCodes.push(json.device_code);
      return reply(res, forwarded.status, forwarded.headers, json ? Buffer.from(JSON.stringify(json)) : forwarded.body);
    }
    if (path.startsWith('/interaction/') && !options.ownInteractionPages) return interaction(req, res);
    if (path === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(body.toString('utf8'));
      const grant = form.get('grant_type') ?? '';
      for (const name of ['assertion', 'client_assertion']) if (form.get(name)) seen.assertions.push(form.get(name)!);
      counts.set(grant, (counts.get(grant) ?? 0) + 1);
      if (grant === DEVICE_CODE) devicePolls.push(Date.now());
      if (nextDelayMs > 0) {
        const delay = nextDelayMs;
        nextDelayMs = 0;
        await sleep(delay);
      }
      const fault = nextFaults.shift() ?? everyFault;
      if (fault) {
        if (fault.delayMs) await sleep(fault.delayMs);
        if (fault.text !== undefined) {
          res.writeHead(fault.status, { 'content-type': 'text/plain', ...fault.headers });
          res.end(fault.text);
          return;
        }
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}),
        });
        res.end(
          JSON.stringify(
            fault.body ?? (fault.status >= 500 ? { error: 'temporarily_unavailable' } : { error: 'invalid_request' }),
          ),
        );
        return;
      }
      if (grant === JWT_BEARER && !form.has('client_id') && !req.headers.authorization) {
        try {
          form.set('client_id', String(jose.decodeJwt(form.get('assertion') ?? '').iss));
        } catch {
          // left to the grant handler, which answers invalid_grant
        }
      }
      const headers: Record<string, string> = tls?.pem
        ? {
            [CLIENT_CERT_HEADER]: encodeURIComponent(tls.pem),
            [CLIENT_VERIFY_HEADER]: tls.verified ? 'SUCCESS' : 'FAILED',
          }
        : {};
      if (
        form.get('client_id') === clients.federated.id &&
        form.get('client_assertion_type') === CLIENT_ASSERTION_JWT
      ) {
        const refusal = await federation.verify(form.get('client_assertion') ?? '');
        if (refusal)
          return reply(
            res,
            401,
            { 'content-type': 'application/json', 'cache-control': 'no-store' },
            Buffer.from(JSON.stringify(refusal)),
          );
        for (const name of ['client_id', 'client_assertion', 'client_assertion_type']) form.delete(name);
        headers.authorization = federatedInner;
      }
      if (
        form.get('client_id') === clients.certificate.id &&
        form.get('client_assertion_type') === CLIENT_ASSERTION_JWT
      ) {
        const refusal = await entraCertificates.verify(form.get('client_assertion') ?? '');
        if (refusal)
          return reply(
            res,
            401,
            { 'content-type': 'application/json', 'cache-control': 'no-store' },
            Buffer.from(JSON.stringify(refusal)),
          );
        assertions.push({
          header: jose.decodeProtectedHeader(form.get('client_assertion')!) as Record<string, unknown>,
          payload: jose.decodeJwt(form.get('client_assertion')!),
        });
        for (const name of ['client_id', 'client_assertion', 'client_assertion_type']) form.delete(name);
        headers.authorization = certificateInner;
      }
      const forwarded = await forward(req, Buffer.from(form.toString()), headers);
      let out = forwarded.body;
      if (forwarded.status === 200) {
        const json = JSON.parse(out.toString('utf8')) as Record<string, unknown>;
        if (typeof json.access_token === 'string') seen.accessTokens.push(json.access_token);
        const bound =
          typeof json.access_token === 'string' && tls?.pem
            ? (await verifyAccessToken(json.access_token))?.boundTo
            : undefined;
        if (bound) boundTokens.push(bound);
        if (typeof json.refresh_token === 'string') seen.refreshTokens.push(json.refresh_token);
        if (stripExpiresIn) {
          delete json.expires_in;
          out = Buffer.from(JSON.stringify(json));
        }
      }
      return reply(res, forwarded.status, forwarded.headers, out);
    }
    const forwarded = await forward(req, body);
    reply(res, forwarded.status, forwarded.headers, forwarded.body);
  }

  /**
   * The person at the browser, as a real deployment's login and consent pages would act for them:
   * the login prompt signs ACCOUNT in; the consent prompt grants exactly what the client asked for
   * (OIDC scopes, and resource scopes per resource indicator), or everything is declined.
   */
  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (decision === 'deny') {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User aborted interaction' },
        { mergeWithLastSubmission: false },
      );
    }
    if (details.prompt.name === 'login') {
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: ACCOUNT } },
        { mergeWithLastSubmission: false },
      );
    }
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /**
   * `presented`: the thumbprint of the client certificate the request came with (the mTLS front),
   * which a certificate-bound token must match. A DPoP-bound token (`cnf.jkt`) must come as
   * `Authorization: DPoP` with a proof of its key for this request (RFC 9449 §7).
   */
  async function resource(req: IncomingMessage, res: ServerResponse, path: string, presented?: string): Promise<void> {
    const match = /^(Bearer|DPoP) (.+)$/i.exec(req.headers.authorization ?? '');
    const verified = match !== null ? await verifyAccessToken(match[2]!) : undefined;
    const dpopOk = async () =>
      verified?.jkt === undefined
        ? match![1]!.toLowerCase() === 'bearer'
        : match![1]!.toLowerCase() === 'dpop' &&
          (await dpopProofFor(req, new URL(path, url), match![2]!, verified.jkt));
    // RFC 9449 §9: a resource server may demand its own nonce in the proof, and says so in a 401.
    if (verified?.jkt !== undefined && requireResourceNonce && proofNonce(req) !== resourceNonce) {
      resourceRequests.push({ path, status: 401 });
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate':
          'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"',
        'dpop-nonce': resourceNonce,
      });
      res.end(JSON.stringify({ error: 'use_dpop_nonce' }));
      return;
    }
    let ok =
      verified !== undefined && (verified.boundTo === undefined || verified.boundTo === presented) && (await dpopOk());
    if (ok && rejectResource > 0) {
      rejectResource--;
      ok = false;
    }
    const status = ok ? 200 : 401;
    resourceRequests.push({ path, status });
    // A resource server may hand out the next nonce with any answer (RFC 9449 §9), and then want it.
    const nextNonce =
      ok && verified?.jkt !== undefined && requireResourceNonce && rotateResourceNonce
        ? (resourceNonce = randomBytes(16).toString('base64url'))
        : undefined;
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(ok ? {} : { 'www-authenticate': 'Bearer error="invalid_token"' }),
      ...(nextNonce ? { 'dpop-nonce': nextNonce } : {}),
    });
    res.end(
      JSON.stringify(
        ok ? (path === '/api/items' ? { items: [{ id: 1 }, { id: 2 }] } : { ok: true }) : { error: 'invalid_token' },
      ),
    );
  }

  function forward(
    req: IncomingMessage,
    body: Buffer,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers };
      // Only the mTLS front says which certificate a request came with (extraHeaders).
      delete headers[CLIENT_CERT_HEADER];
      delete headers[CLIENT_VERIFY_HEADER];
      Object.assign(headers, extraHeaders, { 'content-length': String(body.length) });
      delete headers['transfer-encoding'];
      const out = httpRequest(
        { host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers },
        (response) => {
          readAll(response).then(
            (b) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: b }),
            reject,
          );
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  return {
    url,
    tokenUrl,
    apiUrl: `${url}/api`,
    clients,
    workload: federation.issuer,
    serviceAccounts,
    async issueRefreshToken(clientId = clients.refresh.id) {
      const client = await provider.Client.find(clientId);
      const grant = new provider.Grant({ accountId: ACCOUNT, clientId });
      grant.addOIDCScope('offline_access');
      grant.addResourceScope(RESOURCE, SCOPE);
      const grantId = await grant.save();
      const token = new provider.RefreshToken({
        accountId: ACCOUNT,
        client,
        grantId,
        gty: 'authorization_code',
        scope: `offline_access ${SCOPE}`,
        resource: RESOURCE,
      } as never);
      return token.save();
    },
    decide: (value) => void (decision = value),
    deviceAuthorizationUrl: `${url}/device/auth`,
    setDeviceInterval: (seconds) => void (deviceInterval = seconds),
    devicePolls,
    authorizationRequests,
    async refreshTokenActive(value) {
      const token = await provider.RefreshToken.find(value);
      return token !== undefined && !token.consumed && !token.isExpired;
    },
    tokenRequests: (grantType) =>
      grantType ? (counts.get(grantType) ?? 0) : [...counts.values()].reduce((a, b) => a + b, 0),
    resetCounts: () => counts.clear(),
    failNextTokenRequests: (...faults) => void nextFaults.push(...faults),
    failAllTokenRequests: (fault) => void (everyFault = fault),
    delayNextTokenRequest: (ms) => void (nextDelayMs = ms),
    setAccessTokenTtl: (seconds) => void (ttl = seconds),
    omitExpiresIn: (omit) => void (stripExpiresIn = omit),
    setAccessTokenFormat: (value) => void (format = value),
    seen,
    rejectNextResourceRequests: (n) => void (rejectResource = n),
    resourceRequests,
    assertions,
    requireDpopNonce: (on) => void (requireDpopNonce = on),
    requireResourceDpopNonce: (on, options = {}) => {
      requireResourceNonce = on;
      rotateResourceNonce = options.rotate === true;
    },
    dpopProofs,
    mtls: mtlsMaterial
      ? {
          tokenUrl: `${mtlsUrl}/token`,
          apiUrl: `${mtlsUrl}/api`,
          caPem: mtlsMaterial.ca.certificatePem,
          clients: {
            pki: { id: 'cc-mtls', ...mtlsMaterial.pki },
            selfSigned: { id: 'cc-mtls-self', ...mtlsMaterial.selfSigned },
            refresh: { id: 'refresh-mtls', ...mtlsMaterial.pki },
          },
          strangers: { otherCa: mtlsMaterial.otherCa, otherSubject: mtlsMaterial.otherSubject },
          thumbprint,
          boundTokens,
        }
      : undefined,
    async stop() {
      for (const server of [front, inner, ...(mtlsFront ? [mtlsFront] : [])]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/**
 * The certificates of the mTLS front: its CA and server certificate (localhost), a client certificate
 * of that CA with the registered subject, a self-signed one, and two that must be refused: the
 * registered subject from another CA, and another subject from the peer's CA.
 */
function mtlsCertificates() {
  const pick = (issued: { certificatePem: string; privateKeyPem: string }) => ({
    certificatePem: issued.certificatePem,
    privateKeyPem: issued.privateKeyPem,
  });
  const ca = createCa({ commonName: 'oidc peer mTLS CA' });
  return {
    ca,
    server: issueServer(ca, { hosts: ['localhost'] }),
    pki: pick(issueClient(ca, { commonName: MTLS_SUBJECT })),
    selfSigned: pick(createCa({ commonName: 'self-signed connector' })),
    otherCa: pick(issueClient(createCa(), { commonName: MTLS_SUBJECT })),
    otherSubject: pick(issueClient(ca, { commonName: 'someone-else.peer.test' })),
  };
}

/** An app's certificate credential (RSA, as Entra's portal takes them) and a pair it does not know. */
function certificateCredential() {
  const pair = () => {
    const issued = issueClient(createCa({ commonName: 'connector app certificates' }), { commonName: 'connector-app' });
    return { keyPem: issued.privateKeyPem, certificatePem: issued.certificatePem };
  };
  return { id: 'cc-certificate', ...pair(), unregistered: pair() };
}

/** A certificate's public key as a JWK with the certificate itself (`x5c`), as a client's JWKS registers it. */
function certificateJwk(certificatePem: string): Record<string, unknown> {
  const cert = new X509Certificate(certificatePem);
  return { ...(cert.publicKey.export({ format: 'jwk' }) as object), x5c: [cert.raw.toString('base64')] };
}

/** A certificate's subject as Node writes it (`CN=…\nO=…`) against a registered RFC 4514 string (`CN=…,O=…`), attribute order aside. */
function sameDn(subject: string, registered: string): boolean {
  const normalize = (parts: string[]) =>
    parts
      .map((part) => part.trim())
      .filter(Boolean)
      .sort()
      .join('\n');
  return normalize(subject.split('\n')) === normalize(registered.split(','));
}

/** RFC 8705 §3.1: base64url of the SHA-256 of the certificate's DER. */
function thumbprint(certificatePem: string): string {
  return createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('base64url');
}

function listen(server: Server | import('node:https').Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, headers: IncomingMessage['headers'], body: Buffer): void {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (
      value !== undefined &&
      name !== 'content-length' &&
      name !== 'transfer-encoding' &&
      name !== 'connection' &&
      name !== 'keep-alive'
    )
      out[name] = value;
  out['content-length'] = String(body.length);
  res.writeHead(status, out);
  res.end(body);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A configuration for `connector-auth authorize` with the peer's refresh client: offline access
 * asked for as OpenID Connect (§11) wants it, scope plus prompt=consent; no refresh_token yet.
 */
export function authorizeConfiguration(peer: OidcPeer): Record<string, string> {
  return {
    auth_method: 'oauth2_refresh_token',
    token_url: peer.tokenUrl,
    authorization_url: `${peer.url}/auth`,
    client_id: peer.clients.refresh.id,
    client_secret: peer.clients.refresh.secret,
    scope: 'offline_access api:read',
    authorization_parameters: 'prompt=consent',
    base_url: peer.apiUrl,
    probe_path: 'health',
  };
}

/**
 * The person of the device flow, in a browser on "another device": opens the verification URL
 * (carrying the user code) and goes through the provider's pages (a form its script would submit,
 * then the confirmation of the code); the interaction pages then sign in and decide (`decide`).
 */
export async function confirmDeviceCode(url: URL | string): Promise<Page> {
  const browser = new Browser();
  let page = await browser.open(url);
  for (let step = 0; step < 4 && page.body.includes('<form'); step++) page = await browser.submit(page);
  return page;
}
