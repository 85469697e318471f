import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { S3Source } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import {
  connectSource,
  expectNoSecretIn,
  probeFailure as probeFailureOf,
  silentServer,
  until,
} from '../helpers/source-session.js';
import { createCa, issueServer } from '../peers/certificates.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';
import { start as startSts, type StsPeer } from '../peers/sts.js';

/**
 * AWS roles: `aws_access_key` with `aws_role_arn` (STS AssumeRole signed with the key, with the trust
 * policy's external id) and `aws_web_identity` (AssumeRoleWithWebIdentity with a token file), for the
 * s3 source. STS is test/peers/sts.ts (SigV4 checked against the body, trust policies, documented
 * errors); the credentials it issues are the only ones the S3 peer accepts besides its own pair, with
 * their session token checked, so every listing here proves S3 was signed with the role's session.
 */

const USER = {
  accessKeyId: 'AKIACONNECTORROLE001',
  secretAccessKey: 'role/User+secret?&EXAMPLE=KEY01',
  arn: 'arn:aws:iam::111122223333:user/alice',
};
const WRONG_SECRET = 'Wr0ng/+user?&secret=zz';
const PLAIN_ROLE = 'arn:aws:iam::210987654321:role/orders-reader';
const PARTNER_ROLE = 'arn:aws:iam::210987654321:role/partners/exports-reader';
/** A role that trusts PLAIN_ROLE's sessions: reached by role chaining. */
const CHAINED_ROLE = 'arn:aws:iam::210987654321:role/orders-archive-reader';
const EXTERNAL_ID = 'acme-7f3c';
const WEB_ROLE = 'arn:aws:iam::123456789012:role/orders-sync';
const ISSUER = 'https://oidc.eks.us-east-1.example.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE';
const AUDIENCE = 'sts.amazonaws.com';

let sts: StsPeer;
let httpsSts: StsPeer;
let s3: S3rverPeer;
let caPem: string;
let tokenKey: CryptoKey;
let dir: string;

beforeAll(async () => {
  const ca = createCa();
  caPem = ca.certificatePem;
  const server = issueServer(ca, { hosts: ['localhost'] });
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  tokenKey = privateKey;
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-roles-'));
  // The S3 peer's own pair is s3rver's default, not the user's key: only the role's sessions get in.
  s3 = await startS3({ buckets: ['orders'] });
  await s3.putMany('orders', [
    ['exports/2024-01.csv', 'id\n1\n'],
    ['exports/2024-02.csv', 'id\n2\n'],
  ]);
  const roles = [
    { arn: PLAIN_ROLE, principals: [USER.arn] },
    { arn: PARTNER_ROLE, principals: [USER.arn], externalId: EXTERNAL_ID },
    { arn: CHAINED_ROLE, principals: [PLAIN_ROLE] },
    { arn: WEB_ROLE, webIdentity: { issuer: ISSUER, audience: AUDIENCE, key: publicKey } },
  ];
  const onIssued = (c: Parameters<S3rverPeer['acceptTemporary']>[0]) => s3.acceptTemporary(c);
  [sts, httpsSts] = await Promise.all([
    startSts({ users: [USER], roles, onIssued }),
    startSts({
      users: [USER],
      roles,
      onIssued,
      tls: { key: server.privateKeyPem, cert: server.certificatePem },
      host: 'localhost',
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([sts?.stop(), httpsSts?.stop(), s3?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

function roleConfiguration(extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'aws_access_key',
    aws_access_key_id: USER.accessKeyId,
    aws_secret_access_key: USER.secretAccessKey,
    aws_role_arn: PLAIN_ROLE,
    aws_sts_endpoint: sts.endpoint,
    bucket: 'orders',
    prefix: 'exports/',
    endpoint: s3.endpoint,
    ...extra,
  };
}

const session = (config: Record<string, string>, now?: () => number) =>
  connectSource<S3Source>(config, 's3', now ? { now } : {});

const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 's3');

/** Every secret the tests use, in every form a leak could take. */
const secretForms = () =>
  [USER.secretAccessKey, WRONG_SECRET, ...sts.issued.flatMap((c) => [c.secretAccessKey, c.sessionToken])].flatMap(
    (secret) => leakForms(secret),
  );

const stsRequestsSince = (peer: StsPeer, before: number) => peer.requests.slice(before);
const s3RequestsSince = (before: number) => s3.requests.length - before;

async function webToken(claims: { exp?: number; aud?: string; iss?: string; sub?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'test' })
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject(claims.sub ?? 'system:serviceaccount:orders:sync')
    .setIssuedAt(now)
    .setExpirationTime(claims.exp ?? now + 3600)
    .sign(tokenKey);
}

async function tokenFile(name: string, token: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, token);
  return file;
}

function webConfiguration(file: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'aws_web_identity',
    aws_role_arn: WEB_ROLE,
    web_identity_token_file: file,
    aws_sts_endpoint: sts.endpoint,
    bucket: 'orders',
    prefix: 'exports/',
    endpoint: s3.endpoint,
    ...extra,
  };
}

describe('aws_access_key with aws_role_arn: STS AssumeRole, then S3 signed with the role', () => {
  it('one AssumeRole signed by the key, then the probe and update() on the role session; its secrets registered, shown nowhere', async () => {
    const before = sts.requests.length;
    const { auth, registry, lines } = await session(roleConfiguration());
    try {
      const probe = await auth.probe();
      expect(probe.outcome).toBe("S3 list under 'exports/': objects found (listed 1)");
      const keys: string[] = [];
      for await (const object of auth.source.list()) keys.push(object.key);
      expect(keys).toEqual(['exports/2024-01.csv', 'exports/2024-02.csv']);
      expect((await auth.source.readFile('exports/2024-02.csv')).toString()).toBe('id\n2\n');

      const asked = stsRequestsSince(sts, before);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        action: 'AssumeRole',
        accessKeyId: USER.accessKeyId,
        roleArn: PLAIN_ROLE,
        durationSeconds: 3600,
        externalId: undefined,
        status: 200,
      });
      expect(asked[0]!.roleSessionName).toMatch(/^connector-auth-\d+$/);

      const issued = sts.issued.at(-1)!;
      const identity = await auth.credential.awsKeys!.identity();
      expect(identity).toMatchObject({
        accessKeyId: issued.accessKeyId,
        secretAccessKey: issued.secretAccessKey,
        sessionToken: issued.sessionToken,
      });
      expect(identity.accessKeyId).toMatch(/^ASIA/);
      const text = `sts said ${issued.secretAccessKey} and ${issued.sessionToken}`;
      expect(registry.redact(text)).not.toContain(issued.secretAccessKey);
      expect(registry.redact(text)).not.toContain(issued.sessionToken);
      expect(auth.credential.description).toBe(`aws role ${PLAIN_ROLE} (assumed with access key ${USER.accessKeyId})`);
      const all = lines.join('\n');
      for (const form of secretForms()) expect(all.includes(form), form.slice(0, 10)).toBe(false);
    } finally {
      await auth.close();
    }
  });

  it("the trust policy's external id: sent with AssumeRole when set; without it or wrong, exit 3 naming aws_role_arn and aws_external_id, before any S3 request", async () => {
    const s3Before = s3.requests.length;
    for (const extra of [{}, { aws_external_id: 'acme-0000' }] as Record<string, string>[]) {
      const before = sts.requests.length;
      const { error, lines } = await probeFailure(roleConfiguration({ aws_role_arn: PARTNER_ROLE, ...extra }));
      expect(error.exitCode).toBe(3);
      expect(error.key).toBe('aws_role_arn');
      expect(error.code).toBe('sts_access_denied');
      expect(error.message).toContain(`not allowed to assume ${PARTNER_ROLE}`);
      expect(error.message).toContain('AccessDenied');
      expect(error.hint).toContain('aws_external_id');
      expectNoSecretIn(error, lines, secretForms());
      expect(stsRequestsSince(sts, before).map((r) => [r.action, r.status])).toEqual([['AssumeRole', 403]]);
    }
    expect(s3RequestsSince(s3Before)).toBe(0);

    const before = sts.requests.length;
    const { auth } = await session(roleConfiguration({ aws_role_arn: PARTNER_ROLE, aws_external_id: EXTERNAL_ID }));
    try {
      await auth.probe();
      expect(stsRequestsSince(sts, before)).toMatchObject([
        { action: 'AssumeRole', roleArn: PARTNER_ROLE, externalId: EXTERNAL_ID, status: 200 },
      ]);
    } finally {
      await auth.close();
    }
  });

  it('each way STS refuses is one line naming the key to fix, and no S3 request follows', async () => {
    const s3Before = s3.requests.length;
    const cases: [Record<string, string>, number, string, string][] = [
      [{ aws_role_arn: 'arn:aws:iam::210987654321:role/no-such-role' }, 3, 'aws_role_arn', 'sts_access_denied'],
      [{ aws_access_key_id: 'AKIANOSUCHUSER000001' }, 3, 'aws_access_key_id', 'sts_access_key_unknown'],
      [{ aws_secret_access_key: WRONG_SECRET }, 3, 'aws_secret_access_key', 'sts_signature_mismatch'],
      [{ aws_region: 'eu-west-1' }, 2, 'aws_region', 'sts_wrong_region'],
    ];
    for (const [extra, exitCode, key, code] of cases) {
      const { error, lines } = await probeFailure(roleConfiguration(extra));
      expect([error.exitCode, error.key, error.code], JSON.stringify(extra)).toEqual([exitCode, key, code]);
      expect(error.message).toContain(`STS AssumeRole at ${new URL(sts.endpoint).host} failed`);
      expectNoSecretIn(error, lines, secretForms());
    }
    expect(s3RequestsSince(s3Before)).toBe(0);
  });

  it('one STS request per session lifetime, whatever the concurrency; renewed in the background 3 minutes before the hour ends, and S3 then signs with the new session', async () => {
    // The clock every party reads (the cache, the SDK's signer and its credential memo, both peers'
    // checks) moves by hours in milliseconds; timers stay real.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
    const [before, issuedBefore] = [sts.requests.length, sts.issued.length];
    const { auth } = await session(roleConfiguration());
    const credential = auth.credential.awsKeys!;
    try {
      const first = await Promise.all(Array.from({ length: 50 }, () => credential.identity()));
      expect(new Set(first.map((i) => i.accessKeyId)).size).toBe(1);
      await Promise.all([
        auth.probe(),
        auth.probe(),
        ...Array.from({ length: 8 }, () => auth.source.stat('exports/2024-01.csv')),
      ]);
      expect(stsRequestsSince(sts, before)).toHaveLength(1);

      // 56 minutes on: still the first session, no request.
      later(56 * 60_000);
      expect((await credential.identity()).accessKeyId).toBe(first[0]!.accessKeyId);
      expect((await auth.source.stat('exports/2024-01.csv')).size).toBe(5);
      expect(stsRequestsSince(sts, before)).toHaveLength(1);
      // 57½ minutes: served the current session at once while one renewal runs behind it.
      later(90_000);
      const during = await Promise.all(Array.from({ length: 20 }, () => credential.identity()));
      expect(during.every((i) => i.accessKeyId === first[0]!.accessKeyId)).toBe(true);
      // The renewal is done when the credential serves the new session (STS has issued it a moment
      // before the answer arrives and is stored): waited for, not slept on.
      await until(async () => (await credential.identity()).accessKeyId !== first[0]!.accessKeyId);
      expect(sts.issued.length).toBe(issuedBefore + 2);
      expect(stsRequestsSince(sts, before)).toHaveLength(2);
      // Past the first session's end, which S3 now refuses (ExpiredToken): the SDK has asked its
      // provider again and signs with the new session.
      later(4 * 60_000);
      expect((await auth.source.stat('exports/2024-01.csv')).size).toBe(5);
      expect(stsRequestsSince(sts, before)).toHaveLength(2);
    } finally {
      await auth.close();
      vi.useRealTimers();
    }
  });

  it('STS throttling is retried by the SDK; STS failing on, or not listening, is exit 4 naming aws_sts_endpoint', async () => {
    let before = sts.requests.length;
    sts.failNext(400, 'Throttling', 'Rate exceeded', 1);
    const { auth } = await session(roleConfiguration());
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
    expect(stsRequestsSince(sts, before).map((r) => r.status)).toEqual([400, 200]);

    before = sts.requests.length;
    sts.failNext(503, 'ServiceUnavailable', 'Service is unavailable', 3);
    const unavailable = await probeFailure(roleConfiguration());
    expect([unavailable.error.exitCode, unavailable.error.key, unavailable.error.code]).toEqual([
      4,
      'aws_sts_endpoint',
      'sts_unavailable',
    ]);
    expect(stsRequestsSince(sts, before).map((r) => r.status)).toEqual([503, 503, 503]);

    const closed = await silentServer();
    closed.close();
    const unreachable = await probeFailure(roleConfiguration({ aws_sts_endpoint: `http://127.0.0.1:${closed.port}` }));
    expect([unreachable.error.exitCode, unreachable.error.key]).toEqual([4, 'aws_sts_endpoint']);
    expectNoSecretIn(unreachable.error, unreachable.lines, secretForms());
  });

  it("the key may itself be a role's session (ASIA… with aws_session_token): AssumeRole carries its token, role chaining", async () => {
    const { auth: first } = await session(roleConfiguration());
    try {
      const key = await first.credential.awsKeys!.identity();
      const before = sts.requests.length;
      const { auth: chained } = await session(
        roleConfiguration({
          aws_access_key_id: key.accessKeyId,
          aws_secret_access_key: key.secretAccessKey,
          aws_session_token: key.sessionToken!,
          aws_role_arn: CHAINED_ROLE,
        }),
      );
      try {
        await chained.probe();
        expect(stsRequestsSince(sts, before)).toMatchObject([
          { action: 'AssumeRole', accessKeyId: key.accessKeyId, roleArn: CHAINED_ROLE, status: 200 },
        ]);
        expect((await chained.credential.awsKeys!.identity()).accessKeyId).toBe(sts.issued.at(-1)!.accessKeyId);
      } finally {
        await chained.close();
      }
    } finally {
      await first.close();
    }
  });

  it('STS over HTTPS is verified whatever tls_skip_verify says: trusted through tls_ca_certificate, else exit 5', async () => {
    const before = httpsSts.requests.length;
    const { auth } = await session(
      roleConfiguration({ aws_sts_endpoint: httpsSts.endpoint, tls_ca_certificate: caPem }),
    );
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
    expect(stsRequestsSince(httpsSts, before)).toHaveLength(1);

    for (const extra of [{}, { tls_skip_verify: 'true' }] as Record<string, string>[]) {
      const { error } = await probeFailure(roleConfiguration({ aws_sts_endpoint: httpsSts.endpoint, ...extra }));
      expect([error.exitCode, error.key], JSON.stringify(extra)).toEqual([5, 'tls_ca_certificate']);
    }
  });
});

describe('aws_web_identity: STS AssumeRoleWithWebIdentity with the token file', () => {
  it('the token from the file gets the role session (unsigned request), which S3 accepts; the token is registered as a secret', async () => {
    const token = await webToken();
    const before = sts.requests.length;
    const { auth, registry, lines } = await session(webConfiguration(await tokenFile('token-ok', token)));
    try {
      await auth.probe();
      expect(auth.credential.method).toBe('aws_web_identity');
      expect(stsRequestsSince(sts, before)).toMatchObject([
        { action: 'AssumeRoleWithWebIdentity', accessKeyId: undefined, roleArn: WEB_ROLE, status: 200 },
      ]);
      expect(registry.redact(`token ${token}`)).not.toContain(token);
      expect(lines.join('\n')).not.toContain(token.split('.')[1]!);
    } finally {
      await auth.close();
    }
  });

  it('the file is read again at each renewal: a token the platform did not rotate is refused by name (exit 3, web_identity_token_file)', async () => {
    let now = Date.now();
    const file = await tokenFile('token-rotating', await webToken());
    const { auth } = await session(webConfiguration(file), () => now);
    const credential = auth.credential.awsKeys!;
    try {
      await auth.probe();
      await writeFile(file, await webToken({ exp: Math.floor(Date.now() / 1000) - 60 }));
      now += 60 * 60_000; // past the session's end: the next call must wait for a new one
      const error = (await rejection(credential.identity())) as Failure;
      expect([error.exitCode, error.key, error.code]).toEqual([
        3,
        'web_identity_token_file',
        'sts_web_identity_token_expired',
      ]);
      expect(error.message).toContain('ExpiredTokenException');
    } finally {
      await auth.close();
    }
  });

  it('each refusal names its key: wrong audience and bad signature (the token), an issuer the role does not trust (the role), a missing file (exit 2, no request)', async () => {
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('1h')
      .sign((await generateKeyPair('ES256')).privateKey);
    const cases: [string, number, string, string][] = [
      [
        await webToken({ aud: 'sts.amazonaws.com.example' }),
        3,
        'web_identity_token_file',
        'sts_web_identity_token_refused',
      ],
      [foreign, 3, 'web_identity_token_file', 'sts_web_identity_token_refused'],
      [await webToken({ iss: 'https://token.actions.githubusercontent.com' }), 3, 'aws_role_arn', 'sts_access_denied'],
    ];
    for (const [token, exitCode, key, code] of cases) {
      const { error, lines } = await probeFailure(webConfiguration(await tokenFile('token-case', token)));
      expect([error.exitCode, error.key, error.code]).toEqual([exitCode, key, code]);
      expectNoSecretIn(error, lines, [token.split('.')[2]!]);
    }
    const before = sts.requests.length;
    const { error } = await probeFailure(webConfiguration(join(dir, 'no-such-token')));
    expect([error.exitCode, error.key, error.code]).toEqual([
      2,
      'web_identity_token_file',
      'web_identity_token_unreadable',
    ]);
    expect(sts.requests.length).toBe(before);
  });
});
