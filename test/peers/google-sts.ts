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
 *   With `aws`, a second provider of the pool (`AWS_POOL_PROVIDER`) trusts an AWS account: its
 *   subject token is a serialized, SigV4-signed GetCallerIdentity request, which this STS sends on to
 *   AWS STS (the sts peer, at `aws.stsEndpoint`, with the request's own Host header) as Google's does,
 *   and maps the ARN AWS answers to the principal (`google.subject = assertion.arn`); AWS's refusal
 *   comes back as `invalid_grant` "Received invalid AWS response of type …", Google's words.
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
/** The pool's AWS provider, and what a credential configuration's `audience` says for it. */
export const AWS_POOL_PROVIDER = `projects/${PROJECT_NUMBER}/locations/global/workloadIdentityPools/connectors/providers/aws-ec2`;
export const STS_AWS_AUDIENCE = `//iam.googleapis.com/${AWS_POOL_PROVIDER}`;
const AWS_SUBJECT_TOKEN_TYPE = 'urn:ietf:params:aws:token-type:aws4_request';

export interface GoogleStsOptions {
  /** The AWS provider: the AWS STS that checks the signed requests, the AWS account it trusts, and the role granted the service account. */
  aws?: { stsEndpoint: string; account: string; grantedRole: string };
}

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
  /** The scopes of the token each API request carried. */
  apiScopes: string[][];
  /** The ARNs AWS STS answered for the signed requests of the AWS provider. */
  awsCallers: string[];
  /** The lifetime of the federated tokens issued from now on (default 3600 s, as Google's STS issues them). */
  setFederatedTokenLifetime(seconds: number): void;
  /** The value of the service account tokens issued from now on (a database's password is set to it); undefined: random. */
  setServiceAccountTokenValue(value: string | undefined): void;
  stop(): Promise<void>;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const SUBJECT_TOKEN_TYPES = new Set([
  'urn:ietf:params:oauth:token-type:jwt',
  'urn:ietf:params:oauth:token-type:id_token',
]);

export async function start(options: GoogleStsOptions = {}): Promise<GoogleStsPeer> {
  const federation = await workloadFederation();
  const jose = await import('jose');
  /** Token → the principal it stands for, until when, and the scopes it carries. */
  const issued = new Map<string, { principal: string; expires: number; scopes: string[] }>();
  const peer = {
    exchanges: 0,
    impersonations: 0,
    seen: [] as string[],
    apiCalls: [] as (string | null)[],
    apiScopes: [] as string[][],
    awsCallers: [] as string[],
  };
  let serviceAccountTokenValue: string | undefined;
  let federatedLifetime = 3600;

  const issue = (principal: string, lifetimeSeconds: number, scopes: string[], value?: string) => {
    const token = value ?? `ya29.peer-${randomBytes(24).toString('base64url')}`;
    issued.set(token, { principal, expires: Date.now() + lifetimeSeconds * 1000, scopes });
    peer.seen.push(token);
    return token;
  };
  const bearer = (req: IncomingMessage) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? issued.get(token) : undefined;
    return found && found.expires > Date.now() ? found : undefined;
  };

  async function exchange(form: URLSearchParams, res: ServerResponse): Promise<void> {
    peer.exchanges++;
    const subjectToken = form.get('subject_token') ?? '';
    if (subjectToken) peer.seen.push(subjectToken);
    const oauth = (status: number, error: string, description: string) =>
      json(res, status, { error, error_description: description });
    if (form.get('grant_type') !== TOKEN_EXCHANGE)
      return oauth(400, 'unsupported_grant_type', `Unsupported grant type: ${form.get('grant_type')}`);
    if (form.get('requested_token_type') !== ACCESS_TOKEN_TYPE)
      return oauth(400, 'invalid_request', 'Invalid value for "requested_token_type".');
    if (options.aws && form.get('audience') === STS_AWS_AUDIENCE) return exchangeAws(form, options.aws, res);
    if (!SUBJECT_TOKEN_TYPES.has(form.get('subject_token_type') ?? ''))
      return oauth(400, 'invalid_request', 'Invalid value for "subject_token_type".');
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
    if (!aud.includes(PROVIDER_AUDIENCE))
      return oauth(
        400,
        'invalid_grant',
        `The audience in ID Token [${aud.join(', ')}] does not match the expected audience.`,
      );
    if (claims.iss !== federation.issuer.issuer)
      return oauth(
        400,
        'invalid_grant',
        `The issuer in ID Token [${String(claims.iss)}] does not match the expected issuer.`,
      );
    try {
      await jose.jwtVerify(subjectToken, federation.keys, {
        issuer: federation.issuer.issuer,
        audience: PROVIDER_AUDIENCE,
      });
    } catch (error) {
      if (error instanceof jose.errors.JWTExpired)
        return oauth(400, 'invalid_grant', `ID Token issued at ${String(claims.iat)} is stale to sign-in.`);
      if (error instanceof jose.errors.JWTClaimValidationFailed)
        return oauth(400, 'invalid_grant', `ID Token is not valid: its "${error.claim}" claim was refused.`);
      return oauth(400, 'invalid_grant', 'Invalid JWT signature.');
    }
    const principal = `principal://iam.googleapis.com/${POOL_PROVIDER.replace(/\/providers\/.*$/, '')}/subject/${String(claims.sub)}`;
    json(res, 200, {
      access_token: issue(principal, federatedLifetime, (form.get('scope') ?? '').split(' ')),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: federatedLifetime,
    });
  }

  /** The AWS provider: the subject token is a signed GetCallerIdentity, replayed to AWS STS to learn who signed it. */
  async function exchangeAws(
    form: URLSearchParams,
    aws: NonNullable<GoogleStsOptions['aws']>,
    res: ServerResponse,
  ): Promise<void> {
    const oauth = (status: number, error: string, description: string) =>
      json(res, status, { error, error_description: description });
    if (form.get('subject_token_type') !== AWS_SUBJECT_TOKEN_TYPE)
      return oauth(400, 'invalid_request', 'Invalid value for "subject_token_type".');
    if (!form.get('scope')) return oauth(400, 'invalid_request', 'Scope(s) must be provided.');
    let request: { url?: unknown; method?: unknown; headers?: unknown };
    try {
      request = JSON.parse(decodeURIComponent(form.get('subject_token') ?? '')) as typeof request;
    } catch {
      return oauth(400, 'invalid_grant', 'The subject token is not a valid serialized AWS signed request.');
    }
    const headers = Array.isArray(request.headers) ? (request.headers as { key?: unknown; value?: unknown }[]) : [];
    const header = (name: string) =>
      headers.find((h) => typeof h.key === 'string' && h.key.toLowerCase() === name)?.value;
    const target = URL.parse(typeof request.url === 'string' ? request.url : '');
    if (
      request.method !== 'POST' ||
      !target ||
      target.protocol !== 'https:' ||
      !/^sts(\.[a-z]{2}(?:-[a-z]+)+-\d+)?\.amazonaws\.com$/.test(target.hostname) ||
      target.searchParams.get('Action') !== 'GetCallerIdentity' ||
      target.searchParams.get('Version') !== '2011-06-15' ||
      headers.some((h) => typeof h.key !== 'string' || typeof h.value !== 'string')
    )
      return oauth(400, 'invalid_grant', 'The subject token is not a signed AWS STS GetCallerIdentity request.');
    const resource = header('x-goog-cloud-target-resource');
    if (resource !== STS_AWS_AUDIENCE && resource !== `https:${STS_AWS_AUDIENCE}`)
      return oauth(
        400,
        'invalid_grant',
        'The x-goog-cloud-target-resource header of the AWS request does not match the audience.',
      );
    if (header('host') !== target.host)
      return oauth(400, 'invalid_grant', 'The host header of the AWS request does not match its URL.');

    // What Google's STS does with it: send it to AWS as it is, and read who AWS says signed it.
    const answer = await forward(aws.stsEndpoint, target, headers as { key: string; value: string }[]);
    if (answer.status !== 200) {
      const code = /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1] ?? 'Unknown';
      const message = /<Message>([^<]*)<\/Message>/.exec(answer.body)?.[1] ?? '';
      return oauth(
        400,
        'invalid_grant',
        `Received invalid AWS response of type ${code} with error message: ${message}`,
      );
    }
    const arn = /<Arn>([^<]*)<\/Arn>/.exec(answer.body)?.[1] ?? '';
    const account = /<Account>([^<]*)<\/Account>/.exec(answer.body)?.[1];
    if (account !== aws.account)
      return oauth(400, 'invalid_grant', `The AWS account [${String(account)}] is not the one the provider trusts.`);
    peer.awsCallers.push(arn);
    const principal = `principal://iam.googleapis.com/${AWS_POOL_PROVIDER.replace(/\/providers\/.*$/, '')}/subject/${arn}`;
    json(res, 200, {
      access_token: issue(principal, federatedLifetime, (form.get('scope') ?? '').split(' ')),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: federatedLifetime,
    });
  }

  async function generateAccessToken(
    account: string,
    req: IncomingMessage,
    body: string,
    res: ServerResponse,
  ): Promise<void> {
    peer.impersonations++;
    const google = (status: number, message: string, state: string) =>
      json(res, status, { error: { code: status, message, status: state } });
    const caller = bearer(req);
    if (!caller)
      return google(
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        'UNAUTHENTICATED',
      );
    // The IAM Credentials API, like every Google API, wants a token with one of its scopes.
    if (
      !caller.scopes.some(
        (scope) =>
          scope === 'https://www.googleapis.com/auth/cloud-platform' || scope === 'https://www.googleapis.com/auth/iam',
      )
    )
      return google(403, 'Request had insufficient authentication scopes.', 'PERMISSION_DENIED');
    const principal = caller.principal;
    let request: { scope?: unknown; lifetime?: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      return google(400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    }
    if (!Array.isArray(request.scope) || request.scope.length === 0)
      return google(400, 'Scope required.', 'INVALID_ARGUMENT');
    // roles/iam.workloadIdentityUser is granted on SERVICE_ACCOUNT only, to the pool's one trusted
    // subject and (with `aws`) to every session of one AWS role (a principalSet on attribute.aws_role).
    const awsGranted =
      options.aws !== undefined &&
      principal.includes(`/subject/arn:aws:sts::${options.aws.account}:assumed-role/${options.aws.grantedRole}/`);
    if (account !== SERVICE_ACCOUNT || !(principal.endsWith(`/subject/${federation.issuer.subject}`) || awsGranted))
      return google(
        403,
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
        'PERMISSION_DENIED',
      );
    const lifetime = Number(/^(\d+)s$/.exec(String(request.lifetime ?? '3600s'))?.[1] ?? NaN);
    if (!(lifetime >= 1 && lifetime <= 43_200)) return google(400, 'Invalid lifetime.', 'INVALID_ARGUMENT');
    const accessToken = issue(
      `serviceAccount:${account}`,
      lifetime,
      request.scope.map(String),
      serviceAccountTokenValue,
    );
    json(res, 200, {
      accessToken,
      expireTime: new Date(Date.now() + lifetime * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
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
        const caller = bearer(req);
        const principal = caller?.principal ?? null;
        peer.apiCalls.push(principal);
        peer.apiScopes.push(caller?.scopes ?? []);
        return principal
          ? json(res, 200, { ok: true, principal })
          : json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      }
      json(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return Object.assign(peer, {
    url,
    tokenUrl: `${url}/v1/token`,
    impersonationUrl: (account = SERVICE_ACCOUNT) =>
      `${url}/v1/projects/-/serviceAccounts/${encodeURIComponent(account)}:generateAccessToken`,
    apiUrl: `${url}/api`,
    workload: federation.issuer,
    setServiceAccountTokenValue: (value: string | undefined) => void (serviceAccountTokenValue = value),
    setFederatedTokenLifetime: (seconds: number) => void (federatedLifetime = seconds),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The signed request sent to `endpoint` (the AWS STS peer) with its own headers, Host included: what AWS checks the signature against. */
async function forward(
  endpoint: string,
  target: URL,
  headers: { key: string; value: string }[],
): Promise<{ status: number; body: string }> {
  const at = new URL(`${target.pathname}${target.search}`, endpoint);
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const outgoing = request(
      at,
      { method: 'POST', headers: Object.fromEntries(headers.map((h) => [h.key, h.value])) },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
