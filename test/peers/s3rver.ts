import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real S3 API (s3rver, npm) on 127.0.0.1 at an ephemeral port, with presigned URLs made by the
 * AWS SDK's own presigner for the credentials S3RVER / S3RVER. Every HTTP request it receives is
 * counted, so a test can prove that a URL was refused before any request.
 *
 * s3rver 3.7 checks a presigned URL's expiry but not its Signature Version 4 signature ("V4
 * signatures have incomplete support": any signature passes). In front of it this peer verifies
 * the query signature as S3 does (canonical request → string to sign → HMAC chain) and answers 403
 * SignatureDoesNotMatch otherwise, so a tampered URL, or one signed for another HTTP method, is
 * refused the way S3 refuses it. A fresh URL from the SDK passing proves the check itself right.
 */

export const ACCESS_KEY_ID = 'S3RVER';
export const SECRET_ACCESS_KEY = 'S3RVER';

export interface S3rverPeer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Requests received so far (method and path; the query holds the signature and is not kept). */
  requests: { method: string; path: string; range: string | undefined }[];
  put(bucket: string, key: string, body: string | Uint8Array): Promise<void>;
  /** A presigned URL; `signedAt` in the past makes one that has already expired. */
  presign(bucket: string, key: string, options?: { expiresInSeconds?: number; signedAt?: Date; method?: 'GET' | 'HEAD' }): Promise<string>;
  stop(): Promise<void>;
}

interface S3rverConstructor {
  new (options: { address: string; port: number; silent: boolean; directory: string; configureBuckets: { name: string; configs: never[] }[] }): {
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    httpServer: Server;
  };
}

export async function start(options: { buckets?: string[] } = {}): Promise<S3rverPeer> {
  // s3rver ships no type declarations; required through createRequire with the little used here.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const [s3, { getSignedUrl }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
  const directory = await mkdtemp(join(tmpdir(), 'connector-auth-s3rver-'));
  const buckets = options.buckets ?? ['files'];
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const requests: S3rverPeer['requests'] = [];
  const httpServer = server.httpServer;
  const s3rverHandlers = httpServer.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  httpServer.removeAllListeners('request');
  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? '', path: new URL(req.url ?? '/', endpoint).pathname, range: req.headers.range });
    if (!querySignatureValid(req)) {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message></Error>',
      );
      return;
    }
    for (const handler of s3rverHandlers) handler.call(httpServer, req, res);
  });

  const client = new s3.S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  });

  return {
    endpoint,
    requests,
    async put(bucket, key, body) {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      await client.send(new s3.PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
    },
    async presign(bucket, key, presignOptions = {}) {
      const command =
        presignOptions.method === 'HEAD' ? new s3.HeadObjectCommand({ Bucket: bucket, Key: key }) : new s3.GetObjectCommand({ Bucket: bucket, Key: key });
      return getSignedUrl(client, command, {
        expiresIn: presignOptions.expiresInSeconds ?? 900,
        ...(presignOptions.signedAt ? { signingDate: presignOptions.signedAt } : {}),
      });
    },
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Signature Version 4 for a presigned (query) request, as S3 computes it. Requests signed in the
 * Authorization header (the SDK's own PutObject) and unsigned ones are left to s3rver.
 */
function querySignatureValid(req: IncomingMessage): boolean {
  const [path = '/', rawQuery = ''] = (req.url ?? '/').split('?', 2);
  const params = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=', 2);
      return [decodeURIComponent(name), decodeURIComponent(value)] as const;
    });
  const get = (name: string) => params.find(([n]) => n === name)?.[1];
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return true;
  const provided = get('X-Amz-Signature') ?? '';
  const [accessKeyId, ...scopeParts] = (get('X-Amz-Credential') ?? '').split('/');
  if (accessKeyId !== ACCESS_KEY_ID || scopeParts.length !== 4) return false;
  const [date, region, service] = scopeParts as [string, string, string, string];
  const signedHeaders = get('X-Amz-SignedHeaders') ?? 'host';

  const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = params
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = scopeParts.join('/');
  const stringToSign = ['AWS4-HMAC-SHA256', get('X-Amz-Date') ?? '', scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${SECRET_ACCESS_KEY}`, date), region), service), 'aws4_request');
  return createHmac('sha256', signingKey).update(stringToSign).digest('hex') === provided;
}
