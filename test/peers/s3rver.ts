import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalRequest, parseQuery, sigv4Signature } from './sigv4.js';

/**
 * A real S3 API (s3rver, npm) on 127.0.0.1 at an ephemeral port, over HTTP or (with `tls`) HTTPS,
 * for credentials of the test's choosing (default S3RVER / S3RVER), with presigned URLs made by the
 * AWS SDK's own presigner. Every HTTP request it receives is counted, so a test can prove that a
 * URL was refused before any request.
 *
 * s3rver 3.7 knows which access key ids exist (unknown → 403 InvalidAccessKeyId) and checks a
 * presigned URL's expiry, but not Signature Version 4 signatures ("V4 signatures have incomplete
 * support": any signature passes, so a wrong secret would go unnoticed). In front of it this peer
 * verifies SigV4 as S3 does, for presigned URLs (query) and for the SDK's Authorization header
 * alike: canonical request → string to sign → HMAC chain from the secret of the key id named, else
 * 403 SignatureDoesNotMatch; a header-signed request dated more than 15 minutes from now is 403
 * RequestTimeTooSkewed. A tampered URL, one signed for another HTTP method or a client holding the
 * wrong secret is thus refused the way S3 refuses it, and every request of the SDK passing (every
 * put(), every fresh URL) proves the check itself right. Payload hashes are taken as declared, not
 * recomputed from the body.
 *
 * Temporary credentials (an STS session, e.g. from the sts peer) are accepted once given to
 * acceptTemporary(): s3rver knows nothing of session tokens, so the front checks the token a request
 * carries (`x-amz-security-token`, or `X-Amz-Security-Token` in a presigned URL) as S3 does: missing
 * or not the session's, 400 InvalidToken; past the session's expiry, 400 ExpiredToken.
 */

export const ACCESS_KEY_ID = 'S3RVER';
export const SECRET_ACCESS_KEY = 'S3RVER';

export interface S3rverCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** An STS session's credentials, as the sts peer's `issued` (or an SDK's AssumeRole output) gives them. */
export interface S3rverTemporaryCredentials extends S3rverCredentials {
  sessionToken: string;
  expiration: Date;
}

export interface S3rverPeer {
  /** http://127.0.0.1:<port>, or https:// when started with `tls` (`host` in place of 127.0.0.1 when given). */
  endpoint: string;
  /** TCP connections accepted so far. */
  connections(): number;
  accessKeyId: string;
  secretAccessKey: string;
  /** Requests received so far (method and path; the query holds the signature and is not kept). */
  requests: { method: string; path: string; range: string | undefined }[];
  put(bucket: string, key: string, body: string | Uint8Array): Promise<void>;
  putMany(bucket: string, entries: Array<[key: string, body: string | Uint8Array]>): Promise<void>;
  /** A presigned URL; `signedAt` in the past makes one that has already expired. */
  presign(
    bucket: string,
    key: string,
    options?: { expiresInSeconds?: number; signedAt?: Date; method?: 'GET' | 'HEAD' },
  ): Promise<string>;
  /** Accept these temporary credentials until stop(), with their session token and expiry checked. */
  acceptTemporary(credentials: S3rverTemporaryCredentials): void;
  stop(): Promise<void>;
}

export interface S3rverOptions {
  buckets?: string[];
  credentials?: S3rverCredentials;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** With `tls`: the PEM the peer's own SDK client (put, presign) trusts, the issuer of `cert`. */
  ca?: string;
  /** The host name `endpoint` gives (default 127.0.0.1), e.g. the one name `cert` lists; the server listens on 127.0.0.1 either way. */
  host?: string;
}

interface S3rverConstructor {
  new (options: {
    address: string;
    port: number;
    silent: boolean;
    directory: string;
    configureBuckets: { name: string; configs: never[] }[];
    key?: string;
    cert?: string;
  }): {
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    httpServer: Server;
  };
}

interface S3rverAccount {
  createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  revokeAccessKey(accessKeyId: string): void;
}

// s3rver ships no type declarations; required through createRequire with the little used here.
const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverConstructor;
// s3rver's key registry is per process, not per server: every peer in a test file shares it, so
// the fronts share the secrets they verify with, and a pair is revoked only when no running peer
// still uses it (never the default pair, which is s3rver's own).
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: S3rverAccount };
const keyPairs = new Map<string, KeyPair>([[ACCESS_KEY_ID, { secret: SECRET_ACCESS_KEY, peers: Infinity }]]);

interface KeyPair {
  secret: string;
  peers: number;
  /** For temporary credentials: the token a request must carry, and when it stops being accepted. */
  session?: { token: string; expiration: Date };
}

type CipherFactory = (algorithm: string, key: unknown, iv: unknown, ...rest: unknown[]) => unknown;
const DES_VIA_3DES = Symbol.for('connector-auth.test.s3rver-des-via-3des');

/**
 * s3rver makes ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 (Node ≥ 17)
 * only has in its legacy provider: any listing that needs a second page fails with 500
 * InternalError. Triple DES with the key repeated three times is the same cipher (EDE with
 * K1 = K2 = K3 reduces to DES) and is in the default provider, so s3rver's `des` calls are routed
 * there and its tokens come out byte for byte as intended. Only `des` with an 8-byte key is
 * rerouted, a call that would otherwise throw.
 */
function routeDesToTripleDes(): void {
  const crypto = require('node:crypto') as Record<'createCipheriv' | 'createDecipheriv', CipherFactory> & {
    [DES_VIA_3DES]?: true;
  };
  if (crypto[DES_VIA_3DES]) return;
  for (const name of ['createCipheriv', 'createDecipheriv'] as const) {
    const original = crypto[name];
    crypto[name] = (algorithm, key, iv, ...rest) =>
      /^des(-cbc)?$/i.test(algorithm) && Buffer.isBuffer(key) && key.length === 8
        ? original('des-ede3-cbc', Buffer.concat([key, key, key]), iv, ...rest)
        : original(algorithm, key, iv, ...rest);
  }
  crypto[DES_VIA_3DES] = true;
}

const MAX_SKEW_MS = 15 * 60_000;
const PUT_MANY_PARALLEL = 8;

export async function start(options: S3rverOptions = {}): Promise<S3rverPeer> {
  const [s3, { getSignedUrl }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  routeDesToTripleDes();
  const { accessKeyId, secretAccessKey } = options.credentials ?? {
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
  };
  registerKeyPair(accessKeyId, secretAccessKey);
  const directory = await mkdtemp(join(tmpdir(), 'connector-auth-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: (options.buckets ?? ['files']).map((name) => ({ name, configs: [] })),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
  });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    unregisterKeyPair(accessKeyId);
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${address.port}`;
  const requests: S3rverPeer['requests'] = [];
  const httpServer = server.httpServer;
  let connections = 0;
  httpServer.on('connection', () => connections++);
  const s3rverHandlers = httpServer.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  httpServer.removeAllListeners('request');
  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push({
      method: req.method ?? '',
      path: new URL(req.url ?? '/', endpoint).pathname,
      range: req.headers.range,
    });
    // The answer's Date is this peer's clock, the `Date` a test may move (Node's own header reads the
    // real one): the AWS SDK corrects its signing clock by it, which must agree with the checks here.
    res.setHeader('date', new Date().toUTCString());
    const refusal = refuse(req);
    if (refusal) {
      respondError(res, refusal);
      return;
    }
    for (const handler of s3rverHandlers) handler.call(httpServer, req, res);
  });

  const client = new s3.S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    // s3rver stores a body as received: an aws-chunked upload (the SDK's flexible checksums on a
    // streamed body) would be stored with its chunk framing. put() sends bytes, which the SDK
    // sends plain; keeping checksums to where S3 demands them keeps it that way.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(options.tls && options.ca ? { requestHandler: { httpsAgent: new HttpsAgent({ ca: options.ca }) } } : {}),
  });

  const temporaryKeys: string[] = [];

  const put = async (bucket: string, key: string, body: string | Uint8Array) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    await client.send(new s3.PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
  };

  return {
    endpoint,
    connections: () => connections,
    accessKeyId,
    secretAccessKey,
    requests,
    put,
    async putMany(bucket, entries) {
      let next = 0;
      const worker = async () => {
        while (next < entries.length) {
          const [key, body] = entries[next++]!;
          await put(bucket, key, body);
        }
      };
      await Promise.all(Array.from({ length: Math.min(PUT_MANY_PARALLEL, entries.length) }, worker));
    },
    async presign(bucket, key, presignOptions = {}) {
      const command =
        presignOptions.method === 'HEAD'
          ? new s3.HeadObjectCommand({ Bucket: bucket, Key: key })
          : new s3.GetObjectCommand({ Bucket: bucket, Key: key });
      return getSignedUrl(client, command, {
        expiresIn: presignOptions.expiresInSeconds ?? 900,
        ...(presignOptions.signedAt ? { signingDate: presignOptions.signedAt } : {}),
      });
    },
    acceptTemporary(credentials) {
      registerKeyPair(credentials.accessKeyId, credentials.secretAccessKey, {
        token: credentials.sessionToken,
        expiration: credentials.expiration,
      });
      temporaryKeys.push(credentials.accessKeyId);
    },
    async stop() {
      client.destroy();
      try {
        await server.close();
      } finally {
        unregisterKeyPair(accessKeyId);
        for (const temporary of temporaryKeys.splice(0)) unregisterKeyPair(temporary);
        await rm(directory, { recursive: true, force: true });
      }
    },
  };
}

function registerKeyPair(accessKeyId: string, secretAccessKey: string, session?: KeyPair['session']): void {
  const known = keyPairs.get(accessKeyId);
  if (known && (known.secret !== secretAccessKey || known.session?.token !== session?.token))
    throw new Error(
      `s3rver peer: access key id ${accessKeyId} is already registered with another secret or session token (one registry per process)`,
    );
  if (known) {
    known.peers += 1;
    return;
  }
  keyPairs.set(accessKeyId, { secret: secretAccessKey, peers: 1, ...(session ? { session } : {}) });
  DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
}

function unregisterKeyPair(accessKeyId: string): void {
  const known = keyPairs.get(accessKeyId);
  if (!known || --known.peers > 0) return;
  keyPairs.delete(accessKeyId);
  DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
}

type Refusal = { status: number; code: string; message: string; detail?: Record<string, string> };

const SIGNATURE_DOES_NOT_MATCH: Refusal = {
  status: 403,
  code: 'SignatureDoesNotMatch',
  message:
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
};

/**
 * What S3 would answer instead of serving the request, if anything. Requests that name a key id
 * s3rver does not know, that carry no SigV4 or both mechanisms at once are left to s3rver, which
 * answers those as S3 does.
 */
function refuse(req: IncomingMessage): Refusal | undefined {
  const [path = '/', rawQuery = ''] = (req.url ?? '/').split('?', 2);
  const params = parseQuery(rawQuery);
  const get = (name: string) => params.find(([n]) => n === name)?.[1];
  const authorization = req.headers.authorization;
  const inQuery = get('X-Amz-Algorithm') !== undefined;
  if (inQuery === (authorization !== undefined)) return undefined;

  if (inQuery) {
    if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return undefined;
    const credential = parseCredential(get('X-Amz-Credential') ?? '');
    if (!credential) return SIGNATURE_DOES_NOT_MATCH;
    const keyPair = keyPairs.get(credential.accessKeyId);
    if (keyPair === undefined) return undefined;
    const sessionRefusal = refuseSession(keyPair, get('X-Amz-Security-Token'));
    if (sessionRefusal) return sessionRefusal;
    const signedHeaders = get('X-Amz-SignedHeaders') ?? 'host';
    const canonical = canonicalRequest(
      req,
      path,
      params.filter(([name]) => name !== 'X-Amz-Signature'),
      signedHeaders,
      get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
    );
    return sigv4Signature(keyPair.secret, credential.scope, get('X-Amz-Date') ?? '', canonical) ===
      get('X-Amz-Signature')
      ? undefined
      : SIGNATURE_DOES_NOT_MATCH;
  }

  const match = /^AWS4-HMAC-SHA256 (.*)$/s.exec(authorization ?? '');
  if (!match) return undefined;
  const components = new Map(
    match[1]!.split(',').map((component) => {
      const [name = '', ...value] = component.trim().split('=');
      return [name, value.join('=')] as const;
    }),
  );
  const credential = parseCredential(components.get('Credential') ?? '');
  const signedHeaders = components.get('SignedHeaders');
  const provided = components.get('Signature');
  if (!credential || !signedHeaders || !provided) {
    return {
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message:
        'The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    };
  }
  const keyPair = keyPairs.get(credential.accessKeyId);
  if (keyPair === undefined) return undefined;
  const sessionRefusal = refuseSession(keyPair, req.headers['x-amz-security-token']);
  if (sessionRefusal) return sessionRefusal;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const skew = requestTimeSkew(amzDate);
  if (skew) return skew;
  const canonical = canonicalRequest(
    req,
    path,
    params,
    signedHeaders,
    String(req.headers['x-amz-content-sha256'] ?? ''),
  );
  return sigv4Signature(keyPair.secret, credential.scope, amzDate, canonical) === provided
    ? undefined
    : SIGNATURE_DOES_NOT_MATCH;
}

/**
 * A temporary key's session token, checked before its signature as S3 does (an expired session is
 * refused whatever else is right). S3 answers both with 400 and echoes the token it was given as
 * `Token-0`.
 */
function refuseSession(keyPair: KeyPair, presented: string | string[] | undefined): Refusal | undefined {
  if (!keyPair.session) return undefined;
  const token = Array.isArray(presented) ? presented.join(',') : presented;
  const echo: Record<string, string> = token === undefined ? {} : { 'Token-0': token };
  if (token !== keyPair.session.token)
    return {
      status: 400,
      code: 'InvalidToken',
      message: 'The provided token is malformed or otherwise invalid.',
      detail: echo,
    };
  if (Date.now() > keyPair.session.expiration.getTime())
    return { status: 400, code: 'ExpiredToken', message: 'The provided token has expired.', detail: echo };
  return undefined;
}

/** `<key id>/<date>/<region>/<service>/aws4_request`: the key id, and the rest as the scope. */
function parseCredential(credential: string): { accessKeyId: string; scope: string } | undefined {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts.some((part) => part === '')) return undefined;
  return { accessKeyId: parts[0]!, scope: parts.slice(1).join('/') };
}

/** S3 refuses a header-signed request dated more than 15 minutes away, whatever its signature. */
function requestTimeSkew(amzDate: string): Refusal | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  const requestTime = match
    ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!)
    : NaN;
  if (Number.isNaN(requestTime))
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'AWS authentication requires a valid Date or x-amz-date header',
    };
  if (Math.abs(Date.now() - requestTime) <= MAX_SKEW_MS) return undefined;
  return {
    status: 403,
    code: 'RequestTimeTooSkewed',
    message: 'The difference between the request time and the current time is too large.',
    detail: {
      RequestTime: amzDate,
      ServerTime: new Date().toISOString().replace(/\.\d+/, ''),
      MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
    },
  };
}

/** S3's XML error document, with the request ids S3 sends in its headers and body alike. */
function respondError(res: ServerResponse, refusal: Refusal): void {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const hostId = randomBytes(48).toString('base64');
  const fields: [string, string][] = [
    ['Code', refusal.code],
    ['Message', refusal.message],
    ...Object.entries(refusal.detail ?? {}),
    ['RequestId', requestId],
    ['HostId', hostId],
  ];
  res.writeHead(refusal.status, {
    'content-type': 'application/xml',
    'x-amz-request-id': requestId,
    'x-amz-id-2': hostId,
  });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields.map(([name, value]) => `<${name}>${escape(value)}</${name}>`).join('')}</Error>`,
  );
}
