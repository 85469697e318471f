import { S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type SourceClients } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { S3Source } from '../../src/sources/index.js';
// internals: the S3 source's error classification, fed failures no peer gives on demand
import { classifyS3Error } from '../../src/sources/s3/classify-s3-error.js';
import { leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import { sourceConformance } from './conformance.js';
import { connectSource, expectNoSecretIn, probeFailure as probeFailureOf } from '../helpers/source-session.js';
import { createCa, issueServer } from '../peers/certificates.js';
import { start, type S3rverPeer } from '../peers/s3rver.js';

/**
 * The s3 source against a real S3 API (s3rver, with Signature Version 4 checked in front of it as S3
 * checks it: test/peers/s3rver.ts): the probe's one-object listing, update()'s listing, stat and
 * reads, each way the key can be wrong, unreachable and untrusted servers, and no form of the secret
 * anywhere a person could read.
 */

const ACCESS_KEY_ID = 'AKIACONNECTORAUTH0001';
const SECRET = 'wJalrXUtn/FEMI+K7MDENG?bPxRfiCY&EXAMPLE=KEY';
const WRONG_SECRET = 'Wr0ng/+secret?&AKIAxx=yy';

let peer: S3rverPeer;
let httpsPeer: S3rverPeer;
let caPem: string;

beforeAll(async () => {
  const ca = createCa();
  const server = issueServer(ca);
  caPem = ca.certificatePem;
  const credentials = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET };
  [peer, httpsPeer] = await Promise.all([
    start({ buckets: ['orders', 'empty'], credentials }),
    start({
      buckets: ['orders'],
      credentials,
      tls: { key: server.privateKeyPem, cert: server.certificatePem },
      ca: caPem,
    }),
  ]);
  await peer.putMany('orders', [
    ['exports/2024-01.csv', 'id,amount\n1,10\n'],
    ['exports/2024-02.csv', 'id,amount\n2,20\n'],
    ['exports/2024-03.csv', 'id,amount\n3,30\n'],
    ['exports/archive/2023.csv', 'id,amount\n0,0\n'],
    ['exports/with space + plus.csv', 'x'],
    ['readme.txt', 'hello'],
  ]);
  await httpsPeer.put('orders', 'exports/2024-01.csv', 'id,amount\n1,10\n');
});

afterAll(async () => {
  await Promise.all([peer?.stop(), httpsPeer?.stop()]);
});

function configuration(server: S3rverPeer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'aws_access_key',
    aws_access_key_id: ACCESS_KEY_ID,
    aws_secret_access_key: SECRET,
    bucket: 'orders',
    prefix: 'exports/',
    endpoint: server.endpoint,
    ...extra,
  };
}

const connect = (config: Record<string, string>) => connectSource<S3Source>(config, 's3');
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 's3');

function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, [...leakForms(SECRET), ...leakForms(WRONG_SECRET)]);
}

function warnings(lines: string[]): string[] {
  return lines
    .map((l) => JSON.parse(l) as { level: string; message: string })
    .filter((l) => l.level === 'WARNING')
    .map((l) => l.message);
}

describe('s3 source, the probe and update()', () => {
  it('the probe lists one object under prefix; update() lists, stats and reads on the same client', async () => {
    const { auth, lines } = await connect(configuration(peer));
    try {
      const before = peer.requests.length;
      const probe = await auth.probe();
      expect(probe.target).toBe(`s3://orders/exports/ at ${peer.endpoint}`);
      expect(probe.outcome).toBe("S3 list under 'exports/': objects found (listed 1)");
      expect(auth.credential.description).toBe(`aws access key ${ACCESS_KEY_ID}`);
      expect(peer.requests.length - before).toBe(1);

      const keys: string[] = [];
      for await (const object of auth.source.list({ pageSize: 2 })) keys.push(object.key);
      expect(keys).toEqual([
        'exports/2024-01.csv',
        'exports/2024-02.csv',
        'exports/2024-03.csv',
        'exports/archive/2023.csv',
        'exports/with space + plus.csv',
      ]);
      // Five objects two at a time: three list requests.
      expect(peer.requests.slice(before + 1).filter((r) => r.method === 'GET' && r.path === '/orders/').length).toBe(3);

      const resumed: string[] = [];
      for await (const object of auth.source.list({ startAfter: 'exports/2024-02.csv' })) resumed.push(object.key);
      expect(resumed).toEqual(['exports/2024-03.csv', 'exports/archive/2023.csv', 'exports/with space + plus.csv']);
      const everything: string[] = [];
      for await (const object of auth.source.list({ prefix: '' })) everything.push(object.key);
      expect(everything).toContain('readme.txt');

      const stat = await auth.source.stat('exports/2024-02.csv');
      expect(stat.size).toBe(15);
      expect(stat.modifiedAt).toBeInstanceOf(Date);
      expect(stat.etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect((await auth.source.readFile('exports/2024-03.csv')).toString()).toBe('id,amount\n3,30\n');
      expect((await auth.source.readFile('exports/with space + plus.csv')).toString()).toBe('x');
      let streamed = '';
      for await (const chunk of await auth.source.createReadStream('exports/2024-01.csv')) streamed += String(chunk);
      expect(streamed).toBe('id,amount\n1,10\n');
      expect(warnings(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('an empty bucket or prefix still proves the key: the probe says so', async () => {
    for (const [extra, outcome] of [
      [{ bucket: 'empty', prefix: '' }, 'S3 list in the bucket: no objects'],
      [{ prefix: 'exports/archive/' }, "S3 list under 'exports/archive/': 1 object"],
      [{ prefix: 'nothing-here/' }, "S3 list under 'nothing-here/': no objects"],
    ] as const) {
      const { auth } = await connect(configuration(peer, extra));
      try {
        expect((await auth.probe()).outcome).toBe(outcome);
      } finally {
        await auth.close();
      }
    }
  });

  it("update()'s object errors are the connector's (exit 1), with the s3:// name", async () => {
    const { auth } = await connect(configuration(peer));
    try {
      for (const call of [
        () => auth.source.readFile('exports/none.csv'),
        () => auth.source.stat('exports/none.csv'),
        () => auth.source.createReadStream('exports/none.csv'),
      ]) {
        const error = await rejection(call());
        expect(error.exitCode).toBe(1);
        expect(error.code).toBe('s3_no_such_key');
        expect(error.message).toContain('s3://orders/exports/none.csv: no such object');
      }
      expect(() => auth.source.list({ pageSize: 0 })).toThrow(/pageSize/);
    } finally {
      await auth.close();
    }
  });

  it('the SDK client is there for calls the surface lacks, signed with the same key', async () => {
    const { auth } = await connect(configuration(peer));
    try {
      const { HeadBucketCommand } = await import('@aws-sdk/client-s3');
      const head = await auth.source.client<S3Client>().send(new HeadBucketCommand({ Bucket: 'orders' }));
      expect(head.$metadata.httpStatusCode).toBe(200);
    } finally {
      await auth.close();
    }
  });
});

describe('s3 source, rejected keys', () => {
  it("S3's other refusals name the key to fix (answers s3rver cannot give, as the SDK reports them)", async () => {
    const context = {
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
      tls: { verify: true },
      url: new URL('https://s3.us-east-1.amazonaws.com/orders/'),
      urlKey: 'region',
    };
    const answer = (name: string, status: number, extra: Record<string, unknown> = {}) =>
      Object.assign(
        new S3ServiceException({
          name,
          $fault: 'client',
          $metadata: { httpStatusCode: status },
          message: `${name} said`,
        }),
        extra,
      );
    const cases: [Error, number, string, string][] = [
      [answer('AccessDenied', 403), 3, 's3_access_denied', 'aws_access_key_id'],
      [answer('ExpiredToken', 400), 3, 's3_session_token_refused', 'aws_session_token'],
      [answer('PermanentRedirect', 301, { Region: 'eu-west-1' }), 4, 's3_wrong_region', 'region'],
      [answer('SlowDown', 503), 4, 's3_unavailable', 'bucket'],
    ];
    for (const [error, exitCode, code, key] of cases) {
      const classified = await classifyS3Error(error, 'list', context);
      expect([classified.exitCode, classified.code, classified.key], error.name).toEqual([exitCode, code, key]);
    }
    const redirect = await classifyS3Error(cases[2]![0], 'list', context);
    expect(redirect.hint).toBe("set 'region' to eu-west-1");
  });
});

describe('s3 source, unreachable and untrusted servers', () => {
  it('a bucket that does not exist: exit 4 naming bucket', async () => {
    const { error, lines } = await probeFailure(configuration(peer, { bucket: 'no-such-bucket' }));
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('s3_no_such_bucket');
    expect(error.key).toBe('bucket');
    expectClean(error, lines);
  });

  it('https: verified with tls_ca_certificate (without it, exit 5: the conformance suite)', async () => {
    const { auth } = await connect(configuration(httpsPeer, { tls_ca_certificate: caPem }));
    try {
      expect((await auth.probe()).outcome).toBe("S3 list under 'exports/': 1 object");
    } finally {
      await auth.close();
    }
  });

  it('tls_skip_verify=true connects, and says so as a warning', async () => {
    const { auth, lines } = await connect(configuration(httpsPeer, { tls_skip_verify: 'true' }));
    try {
      await auth.probe();
      expect(warnings(lines).join('\n')).toContain('TLS verification is OFF for S3 at 127.0.0.1');
    } finally {
      await auth.close();
    }
  });
});

describe('s3 source, configuration', () => {
  const attempt = (config: Record<string, string>) =>
    rejection(authenticate(config, { source: 's3' as keyof SourceClients, registry: new SecretRegistry() }));

  it('names the key that is missing or malformed, before any request', async () => {
    const before = peer.requests.length;
    const cases: [Record<string, string>, string][] = [
      [{ bucket: '' }, 'bucket'],
      [{ bucket: 'Orders_2024' }, 'bucket'],
      [{ endpoint: 'ftp://127.0.0.1' }, 'endpoint'],
      [{ endpoint: 'http://s3.internal.example.com' }, 'endpoint'],
      // With an endpoint (an S3-compatible server) its own ids are taken (MinIO's minioadmin), but not
      // one under 3 characters or one that would break SigV4's Credential field.
      [{ aws_access_key_id: 'ab' }, 'aws_access_key_id'],
      [{ aws_access_key_id: 'team/reader' }, 'aws_access_key_id'],
      [{ aws_secret_access_key: '' }, 'aws_secret_access_key'],
      [{ aws_access_key_id: 'ASIATEMPORARYKEY0001' }, 'aws_session_token'],
      [{ aws_role_arn: 'arn:aws:iam::1234:role/reader' }, 'aws_role_arn'],
      [{ aws_external_id: 'partner-7' }, 'aws_role_arn'],
      [
        { aws_role_arn: 'arn:aws:iam::123456789012:role/reader', aws_sts_endpoint: 'http://sts.example.com' },
        'aws_sts_endpoint',
      ],
      [
        { aws_role_arn: 'arn:aws:iam::123456789012:role/reader', aws_role_session_name: 'a b' },
        'aws_role_session_name',
      ],
      [{ auth_method: 'basic', username: 'u', password: SECRET }, 'auth_method'],
    ];
    for (const [extra, key] of cases) {
      const error = await attempt(configuration(peer, extra));
      expect(error.exitCode, key).toBe(2);
      expect(error.key, JSON.stringify(extra)).toBe(key);
      for (const form of leakForms(SECRET)) expect(error.message).not.toContain(form);
    }
    expect(peer.requests.length).toBe(before);
  });

  it('the REST source signs with aws_access_key only for a service it can name: an API host of its own needs aws_service (exit 2)', async () => {
    const error = await rejection(
      authenticate(
        {
          auth_method: 'aws_access_key',
          aws_access_key_id: ACCESS_KEY_ID,
          aws_secret_access_key: SECRET,
          base_url: 'https://api.example.com',
        },
        { registry: new SecretRegistry() },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('aws_service');
  });

  it('the secret and the session token are registered for redaction the moment they are read', async () => {
    const registry = new SecretRegistry();
    const token = 'FwoGZXIvYXdzE/+session?token&x=y';
    await authenticate(configuration(peer, { aws_session_token: token }), {
      source: 's3' as keyof SourceClients,
      registry,
    });
    expect(registry.redact(`a ${SECRET} b ${encodeURIComponent(token)} c`)).toBe(
      'a <redacted:aws_secret_access_key> b <redacted:aws_session_token> c',
    );
  });
});

sourceConformance({
  source: 's3',
  good: () => configuration(peer),
  probeLine: () => `s3://orders/exports/ at ${peer.endpoint} → S3 list under 'exports/': objects found (listed 1)`,
  upserts: 5,
  wrongCredentials: [
    {
      name: 'a wrong secret',
      config: (wrong) => configuration(peer, { aws_secret_access_key: wrong }),
      key: 'aws_secret_access_key',
      code: 's3_signature_mismatch',
      message: () =>
        `aws access key ${ACCESS_KEY_ID}: S3 list s3://orders/exports/ at ${peer.endpoint} failed: the request signature did not match: 'aws_secret_access_key' is not the secret of access key ${ACCESS_KEY_ID} (SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your key and signing method. (HTTP 403))`,
      hint: "check 'aws_secret_access_key'",
    },
    {
      name: 'an access key id S3 does not know',
      config: () => configuration(peer, { aws_access_key_id: 'AKIANOSUCHKEY0000001' }),
      key: 'aws_access_key_id',
      code: 's3_access_key_unknown',
      message: { contains: ['S3 does not know access key AKIANOSUCHKEY0000001 (InvalidAccessKeyId'] },
    },
  ],
  unreachable: {
    config: (port) => configuration(peer, { endpoint: `http://127.0.0.1:${port}` }),
    key: 'endpoint',
    code: 'econnrefused',
  },
  silent: (port) => configuration(peer, { endpoint: `http://127.0.0.1:${port}`, timeout_seconds: '1' }),
  untrusted: [
    {
      name: 'https without tls_ca_certificate',
      config: () => configuration(httpsPeer),
      key: 'tls_ca_certificate',
      message: /the server presents a certificate with subject '.*127\.0\.0\.1/,
    },
  ],
  secrets: () => [SECRET, WRONG_SECRET],
  connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 's3',
  schema: () => [{ table: 'objects', primary_key: ['key'] }],
  async update({ source, op }) {
    for await (const object of source.list()) await op.upsert('objects', { key: object.key, size: object.size });
    await op.checkpoint({ done: true });
  },
});
`,
});
