import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalRequest, parseQuery, rfc3986, sigv4Signature } from './sigv4.js';
import type { IssuedCredentials, StsUser } from './sts.js';

/**
 * An HTTP API behind Amazon API Gateway's IAM authorization (`AWS_IAM`), as a client sees it, on
 * 127.0.0.1: every request must carry a Signature Version 4 `Authorization` header for the
 * `execute-api` service in the API's region, checked as API Gateway documents it, with code that is
 * not the AWS SDK's (test/peers/sigv4.ts):
 *
 * - the canonical URI is the path as received with each segment URI-encoded once more (every AWS
 *   service but S3), the query sorted and encoded, the signed headers (host and x-amz-date required),
 *   and the SHA-256 of the body as received, not as declared;
 * - the key id must be a known user's or a session given to acceptTemporary(), whose
 *   `X-Amz-Security-Token` must come with it and which expires; `X-Amz-Date` within 5 minutes;
 * - the caller's ARN must be allowed to invoke the API (its resource policy, `allow`).
 *
 * Refusals are 403 with API Gateway's `{"message": …}` bodies. API Gateway cannot run here and no
 * npm package provides it; what a client observes of IAM authorization is documented and small (as
 * for STS, test/peers/sts.ts). Behind the check, in the stage `prod`: `/health`, a paged `/items`,
 * `POST /search` that echoes its JSON body, and any other path echoed with its query.
 */

/** A long-term key the gateway knows, as STS's users are (test/peers/sts.ts). */
export type ApiGatewayUser = StsUser;

/** A role's session, as the STS peer issues it: its caller is the assumed role. */
export type ApiGatewaySession = Omit<IssuedCredentials, 'action'>;

export interface ApiGatewayRequest {
  method: string;
  /** The path as received, percent-encoding and all. */
  rawPath: string;
  status: number;
  /** The caller's ARN when the signature passed. */
  caller: string | undefined;
  headers: IncomingMessage['headers'];
}

export interface ApiGatewayPeer {
  url: string;
  region: string;
  /** The ARN of the API's methods: `arn:aws:execute-api:<region>:<account>:<api id>/<stage>`. */
  apiArn: string;
  requests: ApiGatewayRequest[];
  acceptTemporary(session: ApiGatewaySession): void;
  stop(): Promise<void>;
}

export interface ApiGatewayOptions {
  users: ApiGatewayUser[];
  /** Caller ARNs the resource policy allows (users' ARNs, or roles' for their sessions); default: every known caller. */
  allow?: string[];
  region?: string;
  items?: number;
  /** Milliseconds since the epoch, for the 5-minute window; a test pins it with a fake clock. */
  now?: () => number;
}

const ACCOUNT = '123456789012';
const MAX_SKEW_MS = 5 * 60_000;
const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

class Refusal extends Error {
  constructor(message: string) {
    super(message);
  }
}

export async function start(options: ApiGatewayOptions): Promise<ApiGatewayPeer> {
  const region = options.region ?? 'eu-west-1';
  const now = options.now ?? Date.now;
  const apiArn = `arn:aws:execute-api:${region}:${ACCOUNT}:a1b2c3d4e5/prod`;
  const sessions: ApiGatewaySession[] = [];
  const requests: ApiGatewayRequest[] = [];
  const items = Array.from({ length: options.items ?? 25 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` }));

  /** The caller's ARN, or a Refusal with API Gateway's message. */
  const authenticate = (req: IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): string => {
    const authorization = req.headers.authorization;
    if (!authorization) throw new Refusal('Missing Authentication Token');
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/([^,\s]+), ?SignedHeaders=([^,\s]+), ?Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!match)
      throw new Refusal(
        `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${authorization.split(' ')[0]}`,
      );
    const [, accessKeyId, scope, signedHeaders, signature] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    const user = options.users.find((u) => u.accessKeyId === accessKeyId);
    const session = sessions.find((s) => s.accessKeyId === accessKeyId);
    if (!user && !session) throw new Refusal('The security token included in the request is invalid.');
    if (session) {
      if (req.headers['x-amz-security-token'] !== session.sessionToken)
        throw new Refusal('The security token included in the request is invalid.');
      if (session.expiration.getTime() <= now())
        throw new Refusal('The security token included in the request is expired');
    }
    const [date, scopeRegion, service, terminator] = scope.split('/');
    if (scopeRegion !== region) throw new Refusal(`Credential should be scoped to a valid region. `);
    if (service !== 'execute-api') throw new Refusal(`Credential should be scoped to correct service: 'execute-api'. `);
    if (terminator !== 'aws4_request')
      throw new Refusal(`Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'. `);
    const names = signedHeaders.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date')) throw new Refusal(SIGNATURE_MISMATCH);
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const signedAt = Date.parse(
      amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    if (Number.isNaN(signedAt) || date !== amzDate.slice(0, 8)) throw new Refusal(SIGNATURE_MISMATCH);
    if (Math.abs(signedAt - now()) > MAX_SKEW_MS)
      throw new Refusal(
        `Signature expired: ${amzDate} is now earlier than ${isoBasic(now() - MAX_SKEW_MS)} (${isoBasic(now())} - 5 min.)`,
      );
    // Every service but S3: each segment of the path as received URI-encoded once more.
    const canonicalPath = rawPath.split('/').map(rfc3986).join('/');
    const payloadHash = createHash('sha256').update(body).digest('hex');
    const canonical = canonicalRequest(req, canonicalPath, parseQuery(rawQuery), signedHeaders, payloadHash);
    const secret = (user ?? session)!.secretAccessKey;
    if (sigv4Signature(secret, scope, amzDate, canonical) !== signature) throw new Refusal(SIGNATURE_MISMATCH);
    const caller = user ? user.arn : session!.roleArn;
    const shownCaller = user
      ? user.arn
      : `arn:aws:sts::${ACCOUNT}:assumed-role/${session!.roleArn.split('/').pop()}/${session!.sessionName}`;
    if (options.allow && !options.allow.includes(caller))
      throw new Refusal(
        `User: ${shownCaller} is not authorized to perform: execute-api:Invoke on resource: ${apiArn}/${req.method}${decodeURIComponent(rawPath)}`,
      );
    return shownCaller;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const target = req.url ?? '/';
    const at = target.indexOf('?');
    const rawPath = at < 0 ? target : target.slice(0, at);
    const rawQuery = at < 0 ? '' : target.slice(at + 1);
    const send = (status: number, answer: unknown, caller?: string) => {
      requests.push({ method: req.method ?? 'GET', rawPath, status, caller, headers: req.headers });
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': crypto.randomUUID() });
      res.end(JSON.stringify(answer));
    };
    let caller: string;
    try {
      caller = authenticate(req, rawPath, rawQuery, body);
    } catch (error) {
      if (error instanceof Refusal) return send(403, { message: error.message });
      throw error;
    }
    const query = parseQuery(rawQuery);
    // The stage is the path's first segment, as in an execute-api URL.
    const route = rawPath.replace(/^\/prod(?=\/)/, '');
    if (req.method === 'GET' && route === '/health') return send(200, { ok: true }, caller);
    if (req.method === 'GET' && route === '/items') {
      const start = Number(query.find(([name]) => name === 'cursor')?.[1] ?? 0);
      const page = items.slice(start, start + 10);
      return send(
        200,
        { items: page, ...(start + 10 < items.length ? { next_cursor: String(start + 10) } : {}) },
        caller,
      );
    }
    if (req.method === 'POST' && route === '/search')
      return send(200, { received: JSON.parse(body.toString('utf8') || 'null') as unknown }, caller);
    if (req.method === 'GET') return send(200, { path: rawPath, query }, caller);
    send(404, { message: 'Not Found' }, caller);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    region,
    apiArn,
    requests,
    acceptTemporary: (session) => void sessions.push(session),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `20240101T000000Z` */
function isoBasic(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
