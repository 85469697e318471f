import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestSource } from '../../src/sources/index.js';
// internals: the SigV4 scope the REST source signs with, checked against the AWS SDK's
import { signingScope } from '../../src/sources/rest/aws-request-signing.js';
import { cli, exists, initTemplate, leakForms, readTree } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, probeFailure as probeFailureOf } from '../helpers/source-session.js';
import { start as startGateway, type ApiGatewayPeer } from '../peers/api-gateway.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';
import { start as startSts, type StsPeer } from '../peers/sts.js';

/**
 * The rest source with an AWS method: every request signed with SigV4. Against an API behind API
 * Gateway's IAM authorization (test/peers/api-gateway.ts: the signature checked by code that is not
 * the SDK's, over the body as received and the path encoded once more, the session token and its
 * expiry, the 5-minute window, a resource policy), with an access key and with a role's session
 * from the STS peer; and against S3 itself (s3rver, SigV4 checked in front), which signs the path as
 * sent.
 */

const USER = {
  accessKeyId: 'AKIAGATEWAYCALLER001',
  secretAccessKey: 'gateway/Caller+secret?&EXAMPLE=01',
  arn: 'arn:aws:iam::123456789012:user/sync',
};
/** Known to the gateway, but not allowed by its resource policy. */
const OUTSIDER = {
  accessKeyId: 'AKIAGATEWAYOUTSIDER1',
  secretAccessKey: 'gateway/Outsider+secret?&EXAMPLE=02',
  arn: 'arn:aws:iam::123456789012:user/outsider',
};
const WRONG_SECRET = 'Wr0ng/+gateway?&secret=zz';
const ROLE = 'arn:aws:iam::123456789012:role/api-reader';

let gateway: ApiGatewayPeer;
let sts: StsPeer;
let s3: S3rverPeer;

beforeAll(async () => {
  [gateway, s3] = await Promise.all([
    startGateway({ users: [USER, OUTSIDER], allow: [USER.arn, ROLE] }),
    startS3({
      buckets: ['orders'],
      credentials: { accessKeyId: 'AKIAS3RVERRESTSIGN01', secretAccessKey: 's3rver/Rest+secret?&EXAMPLE=03' },
    }),
  ]);
  sts = await startSts({
    users: [USER],
    roles: [{ arn: ROLE, principals: [USER.arn] }],
    region: gateway.region,
    onIssued: (c) => gateway.acceptTemporary(c),
  });
  await s3.putMany('orders', [
    ['exports/2024-01.csv', 'id\n1\n'],
    ['exports/report (final) ü+ß.csv', 'id\n2\n'],
  ]);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), sts?.stop(), s3?.stop()]);
});

function configuration(extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'aws_access_key',
    aws_access_key_id: USER.accessKeyId,
    aws_secret_access_key: USER.secretAccessKey,
    aws_region: gateway.region,
    aws_service: 'execute-api',
    base_url: `${gateway.url}/prod/`,
    probe_path: 'health',
    ...extra,
  };
}

const connect = (config: Record<string, string>, now?: () => number) =>
  connectSource<RestSource>(config, 'rest', now ? { now } : {});
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'rest');
const secretForms = () =>
  [
    USER.secretAccessKey,
    OUTSIDER.secretAccessKey,
    WRONG_SECRET,
    ...sts.issued.flatMap((c) => [c.secretAccessKey, c.sessionToken]),
  ].flatMap((s) => leakForms(s));

describe('rest source with an AWS method: SigV4 on every request', () => {
  it('an access key signs the probe, GETs with awkward paths and queries, and a POST with its body', async () => {
    const { auth, lines } = await connect(configuration());
    const before = gateway.requests.length;
    try {
      expect(await auth.probe()).toMatchObject({ outcome: 'HTTP 200' });
      expect((await auth.source.json<{ items: { id: number }[] }>('items?cursor=10')).items[0]).toEqual({
        id: 11,
        name: 'item 11',
      });
      const echoed = await auth.source.json<{ path: string; query: [string, string][] }>(
        "files/report (final) ü+ß.csv?q=a b&x=1+1&empty=&tag=%2Fdocs&tag=it's",
      );
      expect(echoed.query).toEqual([
        ['q', 'a b'],
        ['x', '1 1'],
        ['empty', ''],
        ['tag', '/docs'],
        ['tag', "it's"],
      ]);
      expect(decodeURIComponent(echoed.path)).toBe('/prod/files/report (final) ü+ß.csv');
      const search = await auth.source.json('search', {
        method: 'POST',
        body: JSON.stringify({ query: { match: { name: 'item 3' } } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(search).toEqual({ received: { query: { match: { name: 'item 3' } } } });
    } finally {
      await auth.close();
    }
    const seen = gateway.requests.slice(before);
    expect(seen.map((r) => [r.status, r.caller])).toEqual(Array(4).fill([200, USER.arn]));
    expect(seen.every((r) => r.headers['x-amz-security-token'] === undefined)).toBe(true);
    expect(lines.join('\n')).not.toContain(USER.secretAccessKey);
  });

  it("a role's session from STS signs, with its session token; one AssumeRole serves every request", async () => {
    const before = { sts: sts.issued.length, gateway: gateway.requests.length };
    const { auth, lines } = await connect(configuration({ aws_role_arn: ROLE, aws_sts_endpoint: sts.endpoint }));
    try {
      await auth.probe();
      await auth.source.json('items');
    } finally {
      await auth.close();
    }
    expect(sts.issued.length - before.sts).toBe(1);
    const session = sts.issued.at(-1)!;
    const seen = gateway.requests.slice(before.gateway);
    expect(seen.map((r) => r.status)).toEqual([200, 200]);
    expect(
      seen.every((r) => r.caller === `arn:aws:sts::123456789012:assumed-role/api-reader/${session.sessionName}`),
    ).toBe(true);
    expect(seen.every((r) => r.headers['x-amz-security-token'] === session.sessionToken)).toBe(true);
    expectNoSecretIn({ message: 'ok', hint: 'ok' } as never, lines, secretForms());
  });

  it("a wrong secret: exit 3 naming aws_secret_access_key, quoting API Gateway's reason", async () => {
    const { error, lines } = await probeFailure(configuration({ aws_secret_access_key: WRONG_SECRET }));
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'aws_secret_access_key', 'http_403']);
    expect(error.message).toContain('The request signature we calculated does not match the signature you provided');
    expectNoSecretIn(error, lines, secretForms());
  });

  it("a caller the API's policy does not allow: exit 3, the message says which permission", async () => {
    const { error, lines } = await probeFailure(
      configuration({ aws_access_key_id: OUTSIDER.accessKeyId, aws_secret_access_key: OUTSIDER.secretAccessKey }),
    );
    expect([error.exitCode, error.code]).toEqual([3, 'http_403']);
    expect(error.message).toContain(
      `User: ${OUTSIDER.arn} is not authorized to perform: execute-api:Invoke on resource: ${gateway.apiArn}/GET/prod/health`,
    );
    expectNoSecretIn(error, lines, secretForms());
  });

  it("requests are signed at the session's clock: six minutes off is API Gateway's 'Signature expired'", async () => {
    const { auth } = await connect(configuration(), () => Date.now() + 6 * 60_000);
    try {
      const error = await rejection(auth.source.json('items'));
      expect([error.exitCode, error.code]).toEqual([3, 'http_403']);
      expect(error.message).toContain('Signature expired');
    } finally {
      await auth.close();
    }
  });

  it('S3 signs the path as sent: a listing and an object whose key needs encoding', async () => {
    const { auth } = await connect({
      auth_method: 'aws_access_key',
      aws_access_key_id: s3.accessKeyId,
      aws_secret_access_key: s3.secretAccessKey,
      aws_region: 'us-east-1',
      aws_service: 's3',
      base_url: `${s3.endpoint}/`,
      probe_path: 'orders?list-type=2&max-keys=1',
    });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      const object = await auth.source.fetch(`orders/exports/${encodeURIComponent('report (final) ü+ß.csv')}`);
      expect([object.status, await object.text()]).toEqual([200, 'id\n2\n']);
      const listing = await (await auth.source.fetch('orders?list-type=2&prefix=exports/')).text();
      expect(listing).toContain('<Key>exports/report (final) ü+ß.csv</Key>');
    } finally {
      await auth.close();
    }
  });

  it("the service and region come from AWS's host names; elsewhere a missing one is exit 2 naming its key, before any request", async () => {
    expect(
      signingScope('a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com', { service: undefined, region: undefined }),
    ).toEqual({ service: 'execute-api', region: 'eu-west-1' });
    expect(
      signingScope('search-logs-x7.us-gov-west-1.es.amazonaws.com', { service: undefined, region: undefined }),
    ).toEqual({ service: 'es', region: 'us-gov-west-1' });
    expect(signingScope('0a1b2c.ap-southeast-2.aoss.amazonaws.com', { service: undefined, region: undefined })).toEqual(
      { service: 'aoss', region: 'ap-southeast-2' },
    );
    expect(
      signingScope('abcdefgh.lambda-url.us-east-2.on.aws', { service: undefined, region: 'eu-central-1' }),
    ).toEqual({ service: 'lambda', region: 'eu-central-1' });
    const before = gateway.requests.length;
    const { aws_service: _service, ...withoutService } = configuration();
    const noService = await probeFailure(withoutService);
    expect([noService.error.exitCode, noService.error.key, noService.error.code]).toEqual([
      2,
      'aws_service',
      'aws_service_missing',
    ]);
    const { aws_region: _region, ...withoutRegion } = configuration();
    const noRegion = await probeFailure(withoutRegion);
    expect([noRegion.error.exitCode, noRegion.error.key, noRegion.error.code]).toEqual([
      2,
      'aws_region',
      'aws_region_missing',
    ]);
    expect(gateway.requests.length).toBe(before);
  });
});

describe('rest source with an AWS method, from the built CLI', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'connector-auth-sigv4-cli-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('debug syncs the rest-api template from an API behind IAM; a wrong secret is exit 3 with AWS’s reason; no secret in any output or file', async () => {
    const good = await initTemplate(
      root,
      'signed',
      'rest-api',
      { ...configuration(), items_path: 'items' },
      { replaceConfiguration: true, auth: ['aws_access_key'] },
    );
    const run = await cli(['debug', good]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+25\b/);
    const files = await readTree(join(good, 'files'));
    for (const form of leakForms(USER.secretAccessKey)) expect(run.stdout + run.stderr + files).not.toContain(form);

    const bad = await initTemplate(
      root,
      'wrong',
      'rest-api',
      { ...configuration({ aws_secret_access_key: WRONG_SECRET }), items_path: 'items' },
      { replaceConfiguration: true, auth: ['aws_access_key'] },
    );
    const refused = await cli(['debug', bad]);
    expect(refused.code).toBe(3);
    const errors = refused.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('The request signature we calculated does not match');
    expect(errors[0]).toContain("check 'aws_secret_access_key'");
    expect(await exists(join(bad, 'files'))).toBe(false);
    for (const form of leakForms(WRONG_SECRET)) expect(refused.stdout + refused.stderr).not.toContain(form);
  });
});
