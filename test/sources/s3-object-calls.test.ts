import { randomBytes } from 'node:crypto';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Source } from '../../src/sources/index.js';
// internals: the S3 source's error classification, fed failures no peer gives on demand
import { classifyObjectError, type S3FailureContext } from '../../src/sources/s3/classify-s3-error.js';
import { rejection } from '../helpers/rejection.js';
import { slowProxy, type SlowProxy } from '../helpers/slow-proxy.js';
import { connectSource, silentServer } from '../helpers/source-session.js';
import { start, type S3rverPeer } from '../peers/s3rver.js';

/**
 * The s3 source's object calls of update() where timing and S3's refusals matter: a stream slower
 * than timeout_seconds (the real s3rver behind a proxy that lets its answer through 1 KiB every
 * 100 ms), the deadline that still bounds getting an object's headers, and the refusals of the
 * credentials themselves on an object call (as the SDK reports them: s3rver's skew check cannot be
 * reached through the SDK, which corrects its clock by the answer's Date and retries).
 */

const ACCESS_KEY_ID = 'AKIACONNECTORAUTH0002';
const SECRET = 'wJalrXUtn/FEMI+K7MDENG?bPxRfiCY&EXAMPLE=KE2';
/** 30 KiB: about three seconds through the throttled proxy. */
const BIG = randomBytes(30 * 1024);

let peer: S3rverPeer;
let throttled: SlowProxy;

beforeAll(async () => {
  peer = await start({ buckets: ['orders'], credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET } });
  await peer.put('orders', 'exports/big.bin', BIG);
  throttled = await slowProxy(Number(new URL(peer.endpoint).port), { throttle: { bytes: 1024, everyMs: 100 } });
});

afterAll(async () => {
  await throttled?.close();
  await peer?.stop();
});

function configuration(endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'aws_access_key',
    aws_access_key_id: ACCESS_KEY_ID,
    aws_secret_access_key: SECRET,
    bucket: 'orders',
    endpoint,
    ...extra,
  };
}

describe('s3 source, createReadStream and timeout_seconds', () => {
  it('an object that streams slower than timeout_seconds is read whole: the deadline covers the headers only', async () => {
    const { auth } = await connectSource<S3Source>(
      configuration(`http://127.0.0.1:${throttled.port}`, { timeout_seconds: '1' }),
      's3',
    );
    try {
      const started = Date.now();
      const stream = await auth.source.createReadStream('exports/big.bin');
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      // Well past the one-second deadline, so the body really outlived it.
      expect(Date.now() - started).toBeGreaterThan(2_000);
      expect(Buffer.concat(chunks).equals(BIG)).toBe(true);
    } finally {
      await auth.close();
    }
  });

  // Only the deadline can end the call, and the error names it; had it not fired, the test's own
  // timeout would end it as a hang.
  it('a server that never answers a GetObject: exit 4 naming timeout_seconds', async () => {
    const silent = await silentServer();
    try {
      const { auth } = await connectSource<S3Source>(
        configuration(`http://127.0.0.1:${silent.port}`, { timeout_seconds: '1' }),
        's3',
      );
      try {
        const error = await rejection(auth.source.createReadStream('exports/big.bin'));
        expect([error.exitCode, error.code, error.key]).toEqual([4, 'timeout', 'timeout_seconds']);
      } finally {
        await auth.close();
      }
    } finally {
      silent.close();
    }
  });
});

describe("s3 source, the credentials' refusals on an object call", () => {
  const context: S3FailureContext = {
    location: { bucket: 'orders', prefix: '', region: 'us-east-1', endpoint: undefined },
    credential: {
      method: 'aws_access_key',
      description: `aws access key ${ACCESS_KEY_ID}`,
      rejectedKey: 'aws_secret_access_key',
      sendsSecret: false,
      awsKeys: {
        signer: `access key ${ACCESS_KEY_ID}`,
        sessionKey: undefined,
        region: undefined,
        identity: async () => ({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET }),
      },
    },
    timeoutSeconds: 10,
    tls: { verify: true } as S3FailureContext['tls'],
    url: new URL('https://s3.us-east-1.amazonaws.com/orders/'),
    urlKey: 'region',
  };
  /** An S3 answer as the SDK throws it: the code as `name`, the status in `$metadata`. */
  const answer = (name: string, status: number) =>
    new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status }, message: `${name} said` });

  it("a 403 for the clock or the session token is the credentials' (exit 3, as in the probe), not the object's access denied", async () => {
    const cases: [Error, number, string, string | undefined][] = [
      [answer('RequestTimeTooSkewed', 403), 3, 's3_clock_skew', 'aws_access_key_id'],
      [answer('ExpiredToken', 403), 3, 's3_session_token_refused', 'aws_session_token'],
      [answer('InvalidToken', 403), 3, 's3_session_token_refused', 'aws_session_token'],
      [answer('TokenRefreshRequired', 403), 3, 's3_session_token_refused', 'aws_session_token'],
      [answer('SignatureDoesNotMatch', 403), 3, 's3_signature_mismatch', 'aws_secret_access_key'],
      // The object's own refusal stays the connector's.
      [answer('AccessDenied', 403), 1, 's3_access_denied', undefined],
    ];
    for (const operation of ['get', 'stat', 'read']) {
      for (const [error, exitCode, code, key] of cases) {
        const classified = (await classifyObjectError(error, operation, 'exports/2024-01.csv', context)) as Error & {
          exitCode: number;
          code: string;
          key?: string;
        };
        expect([classified.exitCode, classified.code, classified.key], `${operation}: ${error.name}`).toEqual([
          exitCode,
          code,
          key,
        ]);
      }
    }
  });
});
