import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The token endpoints of three clouds' instance metadata services, as their documentation and the
 * official SDKs describe them, plus an API that accepts only the tokens issued here.
 *
 * The real services exist only inside Google Cloud, Azure and EC2 (on 169.254.169.254 of each machine), and
 * no emulator of them is published where these machines can reach; this peer reproduces what a client
 * can observe of them, including the checks they make of the client:
 *
 * GCE metadata server, `GET /computeMetadata/v1/instance/service-accounts/<account>/token[?scopes=a,b]`
 * - `Metadata-Flavor: Google` is required (403 without it) and every answer carries it back;
 *   a request with `X-Forwarded-For` is refused (403), as a proxied request is;
 * - `<account>` is `default` or the email of an attached account, else 404 `Not Found`;
 * - `{access_token, expires_in (number), token_type: "Bearer"}`.
 *
 * Azure IMDS, `GET /metadata/identity/oauth2/token?api-version=…&resource=…[&client_id|object_id|msi_res_id=…]`
 * - `Metadata: true` is required: 400 `{error: "invalid_request", error_description: "Required metadata header not specified"}`;
 * - `api-version` is required; `resource` must be one Entra ID knows, else 400 `invalid_resource` (AADSTS500011);
 * - the identity must be assigned to the machine, else 400 `invalid_request` "Identity not found";
 * - `{access_token, refresh_token: "", expires_in, expires_on, not_before (strings), resource, token_type: "Bearer", client_id}`.
 *
 * EC2 IMDSv2 (required, as AWS recommends), `PUT /latest/api/token` then `GET /latest/meta-data/iam/security-credentials/[<role>]`
 * - the PUT needs `X-aws-ec2-metadata-token-ttl-seconds` 1–21600 (else 400) and is refused with
 *   `X-Forwarded-For` (403); it answers a session token, text/plain;
 * - a GET without a live session token (`X-aws-ec2-metadata-token`) is 401;
 * - the listing answers the attached role's name, 404 when the instance has none; the role's document
 *   is `{Code: "Success", LastUpdated, Type: "AWS-HMAC", AccessKeyId, SecretAccessKey, Token, Expiration}`
 *   (text/plain, like every IMDS answer), handed to `onAwsIssued` so that an S3 peer can accept it;
 * - `GET /latest/meta-data/placement/region` and `…/placement/availability-zone` (same session rule)
 *   answer the instance's region (`awsRegion`) and its zone in it.
 *
 * ECS and EKS Pod Identity's container credentials endpoint, `GET /v2/credentials/<task id>` (ECS: the id is the
 * secret-ish part of AWS_CONTAINER_CREDENTIALS_RELATIVE_URI; another id is 404) and `GET /v1/credentials`
 * (Pod Identity: `Authorization` must be the pod's token, else 401), answering
 * `{AccessKeyId, SecretAccessKey, Token, Expiration, RoleArn}` as JSON, likewise handed to `onAwsIssued`.
 *
 * `GET /api/health` and `/api/items` answer 200 to a Bearer token issued here and still valid, for the
 * audience the API is (`apiResource` for Azure tokens; any GCP token), else 401.
 */

export interface IssuedMetadataToken {
  cloud: 'gcp' | 'azure';
  value: string;
  /** GCP: the account; Azure: the identity's client id. */
  identity: string;
  /** GCP: the scopes asked for; Azure: [resource]. */
  audience: string[];
  expiresAt: number;
}

export interface MetadataRequest {
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  status: number;
}

export interface CloudMetadataPeer {
  /** The base URL to give as `metadata_endpoint`. */
  url: string;
  /** The API, as `base_url` (probe_path `health`). */
  apiUrl: string;
  /** The Azure resource the API accepts tokens for. */
  apiResource: string;
  gcpAccounts: string[];
  azure: { systemAssigned: boolean; userAssigned: { clientId: string; objectId: string; resourceId: string }[] };
  tokenRequests: MetadataRequest[];
  apiRequests: { path: string; status: number }[];
  issued: IssuedMetadataToken[];
  /** EC2, ECS and Pod Identity role credentials served. */
  awsIssued: IssuedAwsCredentials[];
  /** ECS's AWS_CONTAINER_CREDENTIALS_RELATIVE_URI for this "task". */
  ecsCredentialsUri: string;
  /** The content of the pod's AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE for `/v1/credentials`. */
  podIdentityToken: string;
  /** The next `count` token requests get `status` (and `body`), before any other check. */
  failNext(status: number, count: number, body?: string, headers?: Record<string, string>): void;
  /**
   * The next EC2 or container credentials document is `fields` over a freshly issued one (a field
   * given as undefined is left out): a broken document, or IMDS's refusal (`Code`), after the
   * session and the role listing went as usual.
   */
  alterNextAwsDocument(fields: Record<string, string | undefined>): void;
  /** Lifetime of the tokens issued from now on (default 3599 s, as both clouds issue). */
  setTokenTtl(seconds: number): void;
  /**
   * Every token issued from now on has this value (undefined: random again). A test sets it as a
   * database role's password, so that a real PostgreSQL can check the token a method logs in with.
   */
  setTokenValue(value: string | undefined): void;
  /** Forgets the answer it should give and the log; keeps identities. */
  reset(): void;
  stop(): Promise<void>;
}

export interface CloudMetadataOptions {
  gcpAccounts?: string[];
  azureSystemAssigned?: boolean;
  /** The role of the EC2 instance profile (default `connector-instance-role`); null: no role attached. */
  awsRole?: string | null;
  /** Called with each set of EC2 role credentials served. */
  onAwsIssued?: (credentials: IssuedAwsCredentials) => void;
  /** The EC2 instance's region (default us-east-1). */
  awsRegion?: string;
  /** Serve HTTPS with this key and certificate (PEM), at `https://localhost:<port>` (a sidecar or a full URI over TLS). */
  tls?: { key: string; cert: string };
}

export interface IssuedAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

const GCP_TOKEN_PATH = /^\/computeMetadata\/v1\/instance\/service-accounts\/([^/]+)\/token$/;
const AWS_TOKEN_PATH = '/latest/api/token';
const CONTAINER_PATHS = /^\/(?:v2\/credentials\/[^/]+|v1\/credentials)$/;
const AWS_ROLES_PATH = /^\/latest\/meta-data\/iam\/security-credentials\/([^/]*)$/;
const AWS_PLACEMENT_PATH = /^\/latest\/meta-data\/placement\/(region|availability-zone)$/;
/** How long EC2 role credentials are served for: EC2 hands out credentials valid for hours. */
const AWS_CREDENTIAL_SECONDS = 6 * 3600;
const AZURE_TOKEN_PATH = '/metadata/identity/oauth2/token';
const KNOWN_RESOURCES = [
  'https://management.azure.com/',
  'https://storage.azure.com/',
  'https://ossrdbms-aad.database.windows.net',
  'api://connector-api',
];

export async function start(options: CloudMetadataOptions = {}): Promise<CloudMetadataPeer> {
  const gcpAccounts = options.gcpAccounts ?? ['connector@example-project.iam.gserviceaccount.com'];
  const systemIdentity = { clientId: crypto.randomUUID(), objectId: crypto.randomUUID(), resourceId: '' };
  const azure: CloudMetadataPeer['azure'] = {
    systemAssigned: options.azureSystemAssigned ?? true,
    userAssigned: [
      {
        clientId: crypto.randomUUID(),
        objectId: crypto.randomUUID(),
        resourceId:
          '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/connectors/providers/Microsoft.ManagedIdentity/userAssignedIdentities/connector',
      },
    ],
  };
  const apiResource = 'api://connector-api';
  const tokenRequests: MetadataRequest[] = [];
  const apiRequests: CloudMetadataPeer['apiRequests'] = [];
  const issued: IssuedMetadataToken[] = [];
  let failures: { status: number; count: number; body: string; headers: Record<string, string> } | undefined;
  let nextAwsDocument: Record<string, string | undefined> | undefined;
  const awsRole = options.awsRole === undefined ? 'connector-instance-role' : options.awsRole;
  const awsRegion = options.awsRegion ?? 'us-east-1';
  const awsIssued: IssuedAwsCredentials[] = [];
  /** IMDSv2 session tokens and when each stops being accepted. */
  const imdsSessions = new Map<string, number>();
  const ecsCredentialsUri = `/v2/credentials/${crypto.randomUUID()}`;
  const podIdentityToken = randomBytes(24).toString('base64');
  let ttl = 3599;
  let fixedValue: string | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    const query = Object.fromEntries(url.searchParams);
    const reply = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, headers);
      res.end(body);
      return status;
    };
    const log = (status: number) =>
      void tokenRequests.push({ path: url.pathname, query, headers: req.headers, status });

    const gcp = GCP_TOKEN_PATH.exec(url.pathname);
    const aws = AWS_ROLES_PATH.exec(url.pathname);
    const container = CONTAINER_PATHS.test(url.pathname);
    const placement = AWS_PLACEMENT_PATH.exec(url.pathname);
    if (gcp || url.pathname === AZURE_TOKEN_PATH || url.pathname === AWS_TOKEN_PATH || aws || container || placement) {
      if (failures && failures.count > 0) {
        failures.count--;
        return log(reply(failures.status, failures.body, failures.headers));
      }
      if (gcp) return log(gcpToken(req, decodeURIComponent(gcp[1]!), url, reply));
      if (url.pathname === AWS_TOKEN_PATH) return log(imdsSession(req, reply));
      if (aws) return log(awsCredentials(req, decodeURIComponent(aws[1]!), reply));
      if (placement) return log(awsPlacement(req, placement[1] as 'region' | 'availability-zone', reply));
      if (container) return log(containerCredentials(req, url.pathname, reply));
      return log(azureToken(req, url, reply));
    }
    if (url.pathname.startsWith('/api/')) {
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const found = issued.find((t) => t.value === token);
      const valid =
        found !== undefined &&
        found.expiresAt > Date.now() &&
        (found.cloud === 'gcp' || found.audience[0] === apiResource);
      const status = valid ? 200 : 401;
      apiRequests.push({ path: url.pathname, status });
      if (!valid)
        return void reply(401, JSON.stringify({ error: 'invalid_token' }), {
          'content-type': 'application/json',
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      const body = url.pathname === '/api/items' ? { items: [{ id: 1 }, { id: 2 }] } : { ok: true };
      return void reply(200, JSON.stringify(body), { 'content-type': 'application/json' });
    }
    reply(404, 'Not Found', { 'content-type': 'text/plain' });
  };

  type Reply = (status: number, body: string, headers?: Record<string, string>) => number;

  function gcpToken(req: IncomingMessage, account: string, url: URL, reply: Reply): number {
    const flavor = { 'metadata-flavor': 'Google' };
    if (req.method !== 'GET') return reply(405, 'Method Not Allowed', flavor);
    if (req.headers['metadata-flavor'] !== 'Google')
      return reply(
        403,
        `Your client does not have permission to get URL ${url.pathname} from this server. Missing Metadata-Flavor:Google header.`,
        { ...flavor, 'content-type': 'text/html' },
      );
    if (req.headers['x-forwarded-for'] !== undefined)
      return reply(403, 'Forbidden', { ...flavor, 'content-type': 'text/html' });
    const email = account === 'default' ? gcpAccounts[0] : gcpAccounts.find((a) => a === account);
    if (!email) return reply(404, 'Not Found\n', { ...flavor, 'content-type': 'text/plain' });
    const scopes = (url.searchParams.get('scopes') ?? 'https://www.googleapis.com/auth/cloud-platform').split(',');
    const value = fixedValue ?? `ya29.${randomBytes(48).toString('base64url')}`;
    issued.push({ cloud: 'gcp', value, identity: email, audience: scopes, expiresAt: Date.now() + ttl * 1000 });
    return reply(200, JSON.stringify({ access_token: value, expires_in: ttl, token_type: 'Bearer' }), {
      ...flavor,
      'content-type': 'application/json',
    });
  }

  function imdsSession(req: IncomingMessage, reply: Reply): number {
    const text = { 'content-type': 'text/plain', server: 'EC2ws' };
    if (req.method !== 'PUT') return reply(405, 'Method Not Allowed', text);
    if (req.headers['x-forwarded-for'] !== undefined) return reply(403, 'Forbidden', text);
    const ttl = Number(req.headers['x-aws-ec2-metadata-token-ttl-seconds']);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 21_600) return reply(400, 'Bad Request', text);
    const token = randomBytes(42).toString('base64');
    imdsSessions.set(token, Date.now() + ttl * 1000);
    return reply(200, token, { ...text, 'x-aws-ec2-metadata-token-ttl-seconds': String(ttl) });
  }

  function awsCredentials(req: IncomingMessage, role: string, reply: Reply): number {
    const text = { 'content-type': 'text/plain', server: 'EC2ws' };
    if (req.method !== 'GET') return reply(405, 'Method Not Allowed', text);
    const session = String(req.headers['x-aws-ec2-metadata-token'] ?? '');
    if ((imdsSessions.get(session) ?? 0) <= Date.now()) return reply(401, 'Unauthorized', text);
    if (awsRole === null || (role !== '' && role !== awsRole)) return reply(404, 'Not Found', text);
    if (role === '') return reply(200, awsRole, text);
    const issued = issueAwsCredentials();
    const document = { Code: 'Success', LastUpdated: isoSeconds(new Date()), Type: 'AWS-HMAC', ...issued };
    return reply(200, JSON.stringify(altered(document), null, 2), text);
  }

  function awsPlacement(req: IncomingMessage, what: 'region' | 'availability-zone', reply: Reply): number {
    const text = { 'content-type': 'text/plain', server: 'EC2ws' };
    if (req.method !== 'GET') return reply(405, 'Method Not Allowed', text);
    if ((imdsSessions.get(String(req.headers['x-aws-ec2-metadata-token'] ?? '')) ?? 0) <= Date.now())
      return reply(401, 'Unauthorized', text);
    return reply(200, what === 'region' ? awsRegion : `${awsRegion}b`, text);
  }

  function containerCredentials(req: IncomingMessage, path: string, reply: Reply): number {
    const json = { 'content-type': 'application/json' };
    if (req.method !== 'GET') return reply(405, 'Method Not Allowed', json);
    if (path === '/v1/credentials' && req.headers.authorization !== podIdentityToken)
      return reply(401, JSON.stringify({ message: 'Unauthorized' }), json);
    if (path.startsWith('/v2/') && path !== ecsCredentialsUri)
      return reply(404, JSON.stringify({ code: 'NotFound', message: 'Not Found' }), json);
    return reply(
      200,
      JSON.stringify(
        altered({ ...issueAwsCredentials(), RoleArn: 'arn:aws:iam::123456789012:role/connector-task-role' }),
      ),
      json,
    );
  }

  /** The document as served: alterNextAwsDocument's fields over it, once (JSON leaves out the undefined ones). */
  function altered(document: Record<string, string>): Record<string, string | undefined> {
    const fields = nextAwsDocument;
    nextAwsDocument = undefined;
    return { ...document, ...fields };
  }

  /** A new set of role credentials, recorded and handed to onAwsIssued; the document's fields, as AWS names them. */
  function issueAwsCredentials() {
    const credentials: IssuedAwsCredentials = {
      accessKeyId: `ASIA${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(600).toString('base64'),
      expiration: new Date(Math.floor(Date.now() / 1000) * 1000 + AWS_CREDENTIAL_SECONDS * 1000),
    };
    awsIssued.push(credentials);
    options.onAwsIssued?.(credentials);
    return {
      AccessKeyId: credentials.accessKeyId,
      SecretAccessKey: credentials.secretAccessKey,
      Token: credentials.sessionToken,
      Expiration: isoSeconds(credentials.expiration),
    };
  }

  function azureToken(req: IncomingMessage, url: URL, reply: Reply): number {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const error = (status: number, code: string, description: string) =>
      reply(status, JSON.stringify({ error: code, error_description: description }), json);
    if (req.method !== 'GET') return error(405, 'method_not_allowed', 'Only GET is allowed');
    // IMDS takes the value in any case: Google's credential configurations for Azure send "True".
    if (req.headers.metadata?.toString().toLowerCase() !== 'true')
      return error(400, 'invalid_request', 'Required metadata header not specified');
    if (!url.searchParams.get('api-version'))
      return error(400, 'invalid_request', "Required query variable 'api-version' is missing");
    const resource = url.searchParams.get('resource') ?? '';
    if (!resource) return error(400, 'invalid_request', "Required query variable 'resource' is missing");
    const clientId = url.searchParams.get('client_id');
    const objectId = url.searchParams.get('object_id');
    const resourceId = url.searchParams.get('msi_res_id');
    const identity =
      clientId !== null
        ? azure.userAssigned.find((i) => i.clientId === clientId)
        : objectId !== null
          ? azure.userAssigned.find((i) => i.objectId === objectId)
          : resourceId !== null
            ? azure.userAssigned.find((i) => i.resourceId.toLowerCase() === resourceId.toLowerCase())
            : azure.systemAssigned
              ? systemIdentity
              : undefined;
    if (!identity) return error(400, 'invalid_request', 'Identity not found');
    if (!KNOWN_RESOURCES.includes(resource))
      return error(
        400,
        'invalid_resource',
        `AADSTS500011: The resource principal named ${resource} was not found in the tenant. Trace ID: ${crypto.randomUUID()}`,
      );
    const now = Math.floor(Date.now() / 1000);
    const value =
      fixedValue ??
      `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${randomBytes(64).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    issued.push({
      cloud: 'azure',
      value,
      identity: identity.clientId,
      audience: [resource],
      expiresAt: Date.now() + ttl * 1000,
    });
    return reply(
      200,
      JSON.stringify({
        access_token: value,
        refresh_token: '',
        expires_in: String(ttl),
        expires_on: String(now + ttl),
        not_before: String(now),
        resource,
        token_type: 'Bearer',
        client_id: identity.clientId,
      }),
      json,
    );
  }

  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handle)
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api/`,
    apiResource,
    gcpAccounts,
    azure,
    tokenRequests,
    apiRequests,
    issued,
    awsIssued,
    ecsCredentialsUri,
    podIdentityToken,
    failNext(status, count, body = '', headers = {}) {
      failures = { status, count, body, headers };
    },
    alterNextAwsDocument(fields) {
      nextAwsDocument = fields;
    },
    setTokenTtl(seconds) {
      ttl = seconds;
    },
    setTokenValue(value) {
      fixedValue = value;
    },
    reset() {
      failures = undefined;
      nextAwsDocument = undefined;
      ttl = 3599;
      fixedValue = undefined;
      tokenRequests.length = 0;
      apiRequests.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** ISO 8601 to the second, as AWS writes times: 2026-11-24T01:00:00Z. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
