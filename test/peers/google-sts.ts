import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { workloadFederation, type WorkloadIssuer } from './workload-federation.js';

/**
 * Google Cloud's workload identity federation as a client sees it, on 127.0.0.1:
 *
 * - the Security Token Service (`POST /v1/token`, RFC 8693 token exchange, as sts.googleapis.com):
 *   the `audience` must name the pool provider, the subject token must be an OIDC token of the
 *   provider's issuer (the peer's own cluster, workload-federation.ts) whose `aud` is the provider's
 *   allowed audience, signed by the issuer's key and unexpired. It answers a federated access token,
 *   or Google's documented `invalid_target` / `invalid_grant` / `invalid_request` bodies.
 * - the IAM Credentials API (`POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken`): a
 *   federated token whose principal holds roles/iam.workloadIdentityUser on the account gets the
 *   account's token (`accessToken`, `expireTime`); otherwise Google's 403 PERMISSION_DENIED body.
 * - a protected API under `/api/` that takes either kind of token and says whose it is.
 *
 * Neither service can run here, and no npm package provides them; what a client observes of them is
 * documented and small (the AWS STS peer, test/peers/sts.ts, is the same kind of reproduction).
 */

export const PROJECT_NUMBER = '123456789012';
export const POOL_PROVIDER = `projects/${PROJECT_NUMBER}/locations/global/workloadIdentityPools/connectors/providers/cluster-1`;
/** What the credential configuration's `audience` says. */
export const STS_AUDIENCE = `//iam.googleapis.com/${POOL_PROVIDER}`;
/** What the provider accepts in a token's `aud` by default. */
export const PROVIDER_AUDIENCE = `https://iam.googleapis.com/${POOL_PROVIDER}`;
export const SERVICE_ACCOUNT = 'connector@peer-project.iam.gserviceaccount.com';

export interface GoogleStsPeer {
  url: string;
  tokenUrl: string;
  /** generateAccessToken of `account` (default SERVICE_ACCOUNT). */
  impersonationUrl(account?: string): string;
  apiUrl: string;
  /** The cluster whose tokens the pool provider trusts. */
  workload: WorkloadIssuer;
  /** Requests received: token exchanges and generateAccessToken calls. */
  exchanges: number;
  impersonations: number;
  /** Subject tokens received, and every token issued: for leak checks. */
  seen: string[];
  /** Requests to the API: the principal whose token each carried, or null when refused. */
  apiCalls: (string | null)[];
  /** The value of the service account tokens issued from now on (a database's password is set to it); undefined: random. */
  setServiceAccountTokenValue(value: string | undefined): void;
  stop(): Promise<void>;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const SUBJECT_TOKEN_TYPES = new Set(['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:id_token']);

export async function start(): Promise<GoogleStsPeer> {
  const federation = await workloadFederation();
  const jose = await import('jose');
  /** Token → the principal it stands for, and until when. */
  const issued = new Map<string, { principal: string; expires: number }>();
  const peer = { exchanges: 0, impersonations: 0, seen: [] as string[], apiCalls: [] as (string | null)[] };
  let serviceAccountTokenValue: string | undefined;

  const issue = (principal: string, lifetimeSeconds: number, value?: string) => {
    const token = value ?? `ya29.peer-${randomBytes(24).toString('base64url')}`;
    issued.set(token, { principal, expires: Date.now() + lifetimeSeconds * 1000 });
    peer.seen.push(token);
    return token;
  };
  const bearer = (req: IncomingMessage) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? issued.get(token) : undefined;
    return found && found.expires > Date.now() ? found.principal : undefined;
  };

  async function exchange(form: URLSearchParams, res: ServerResponse): Promise<void> {
    peer.exchanges++;
    const subjectToken = form.get('subject_token') ?? '';
    if (subjectToken) peer.seen.push(subjectToken);
    const oauth = (status: number, error: string, description: string) => json(res, status, { error, error_description: description });
    if (form.get('grant_type') !== TOKEN_EXCHANGE) return oauth(400, 'unsupported_grant_type', `Unsupported grant type: ${form.get('grant_type')}`);
    if (form.get('requested_token_type') !== ACCESS_TOKEN_TYPE) return oauth(400, 'invalid_request', 'Invalid value for "requested_token_type".');
    if (!SUBJECT_TOKEN_TYPES.has(form.get('subject_token_type') ?? '')) return oauth(400, 'invalid_request', 'Invalid value for "subject_token_type".');
    if (form.get('audience') !== STS_AUDIENCE)
      return oauth(
        400,
        'invalid_target',
        'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.',
      );
    if (!form.get('scope')) return oauth(400, 'invalid_request', 'Scope(s) must be provided.');
    let claims: Record<string, unknown>;
    try {
      claims = jose.decodeJwt(subjectToken);
    } catch {
      return oauth(400, 'invalid_grant', 'Invalid ID Token.');
    }
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(PROVIDER_AUDIENCE)) return oauth(400, 'invalid_grant', `The audience in ID Token [${aud.join(', ')}] does not match the expected audience.`);
    if (claims.iss !== federation.issuer.issuer) return oauth(400, 'invalid_grant', `The issuer in ID Token [${String(claims.iss)}] does not match the expected issuer.`);
    try {
      await jose.jwtVerify(subjectToken, federation.keys, { issuer: federation.issuer.issuer, audience: PROVIDER_AUDIENCE });
    } catch (error) {
      if (error instanceof jose.errors.JWTExpired) return oauth(400, 'invalid_grant', `ID Token issued at ${String(claims.iat)} is stale to sign-in.`);
      if (error instanceof jose.errors.JWTClaimValidationFailed) return oauth(400, 'invalid_grant', `ID Token is not valid: its "${error.claim}" claim was refused.`);
      return oauth(400, 'invalid_grant', 'Invalid JWT signature.');
    }
    const principal = `principal://iam.googleapis.com/${POOL_PROVIDER.replace(/\/providers\/.*$/, '')}/subject/${String(claims.sub)}`;
    json(res, 200, { access_token: issue(principal, 3600), issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: 3600 });
  }

  async function generateAccessToken(account: string, req: IncomingMessage, body: string, res: ServerResponse): Promise<void> {
    peer.impersonations++;
    const google = (status: number, message: string, state: string) => json(res, status, { error: { code: status, message, status: state } });
    const principal = bearer(req);
    if (!principal)
      return google(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', 'UNAUTHENTICATED');
    let request: { scope?: unknown; lifetime?: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      return google(400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    }
    if (!Array.isArray(request.scope) || request.scope.length === 0) return google(400, 'Scope required.', 'INVALID_ARGUMENT');
    // roles/iam.workloadIdentityUser is granted to the pool's one trusted subject, on SERVICE_ACCOUNT only.
    if (account !== SERVICE_ACCOUNT || !principal.endsWith(`/subject/${federation.issuer.subject}`))
      return google(403, "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).", 'PERMISSION_DENIED');
    const lifetime = Number(/^(\d+)s$/.exec(String(request.lifetime ?? '3600s'))?.[1] ?? NaN);
    if (!(lifetime >= 1 && lifetime <= 43_200)) return google(400, 'Invalid lifetime.', 'INVALID_ARGUMENT');
    const accessToken = issue(`serviceAccount:${account}`, lifetime, serviceAccountTokenValue);
    json(res, 200, { accessToken, expireTime: new Date(Date.now() + lifetime * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') });
  }

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://peer').pathname;
      if (req.method === 'POST' && path === '/v1/token') return exchange(new URLSearchParams(body), res);
      const account = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/.exec(path)?.[1];
      if (req.method === 'POST' && account) return generateAccessToken(decodeURIComponent(account), req, body, res);
      if (path.startsWith('/api/')) {
        const principal = bearer(req) ?? null;
        peer.apiCalls.push(principal);
        return principal ? json(res, 200, { ok: true, principal }) : json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      }
      json(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return Object.assign(peer, {
    url,
    tokenUrl: `${url}/v1/token`,
    impersonationUrl: (account = SERVICE_ACCOUNT) => `${url}/v1/projects/-/serviceAccounts/${encodeURIComponent(account)}:generateAccessToken`,
    apiUrl: `${url}/api`,
    workload: federation.issuer,
    setServiceAccountTokenValue: (value: string | undefined) => void (serviceAccountTokenValue = value),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
