import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostgresSource } from '../../src/sources/index.js';
import { rdsRegion } from '../../src/sources/postgres/index.js';
import { leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, probeFailure } from '../helpers/source-session.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../peers/postgres-tls.js';
import { sigv4Signature } from '../peers/sigv4.js';
import { start as startSts, type StsPeer } from '../peers/sts.js';

/**
 * An AWS access key with the postgres source: IAM database authentication as Amazon RDS and Aurora
 * take it, against a real PostgreSQL 15 over verify-full TLS.
 *
 * PostgreSQL here cannot ask IAM about a token as RDS does. What it can check is that the exact token
 * for this key, host, port, user, region and moment is what the source logs in with: the clock is
 * pinned (only `Date` is faked), the test works the token out itself — its documented form, and its
 * signature recomputed by the test peers' own SigV4 code, not the SDK's — and sets the role's
 * password to it. A token for any other key, user, region or moment fails the login.
 */

const DATABASE = 'app';
const REGION = 'us-east-1';
const KEY_ID = 'AKIACONNECTORAUTHRDS1';
const SECRET = 'rds/IAM+secret?&EXAMPLE=KEY';
const WRONG_SECRET = 'Wr0ng/+rds?&secret=zz';
/** Where the clock is pinned, and the next login's moment. */
const T0 = Date.UTC(2026, 10, 23, 9, 30, 15);
const T1 = T0 + 60_000;

let db: TlsPostgresPeer;
let sts: StsPeer;
const ROLE = 'arn:aws:iam::210987654321:role/orders-db-reader';

/**
 * The token RDS expects for `at`, from its documented form: `host:port/?Action=connect&DBUser=…`
 * presigned for rds-db, 900 s; signed by a role's session, it carries the session token too.
 */
function expectedToken(
  at: number,
  secret = SECRET,
  session?: { accessKeyId: string; secretAccessKey: string; sessionToken: string },
): string {
  const keyId = session?.accessKeyId ?? KEY_ID;
  if (session) secret = session.secretAccessKey;
  const amzDate = new Date(at).toISOString().replace(/[-:]|\.\d+/g, '');
  const scope = `${amzDate.slice(0, 8)}/${REGION}/rds-db/aws4_request`;
  const query = [
    `Action=connect`,
    `DBUser=${encodeURIComponent(db.user)}`,
    `X-Amz-Algorithm=AWS4-HMAC-SHA256`,
    `X-Amz-Credential=${encodeURIComponent(`${keyId}/${scope}`)}`,
    `X-Amz-Date=${amzDate}`,
    `X-Amz-Expires=900`,
    ...(session ? [`X-Amz-Security-Token=${encodeURIComponent(session.sessionToken)}`] : []),
    `X-Amz-SignedHeaders=host`,
  ].join('&');
  const host = `${db.host}:${db.port}`;
  const canonical = ['GET', '/', query, `host:${host}\n`, 'host', createHash('sha256').update('').digest('hex')].join(
    '\n',
  );
  return `${host}/?${query.replace('&X-Amz-SignedHeaders', `&X-Amz-Signature=${sigv4Signature(secret, scope, amzDate, canonical)}&X-Amz-SignedHeaders`)}`;
}

/** Logs in with the current password and makes `next` the role's password. */
async function setRolePassword(current: string, next: string): Promise<void> {
  const client = await db.superuser(current);
  try {
    // A token holds no quote; the statement takes no parameters for the password.
    expect(next).not.toContain("'");
    await client.query(`ALTER ROLE CURRENT_USER PASSWORD '${next}'`);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  db = await startTlsPostgres({ password: 'set-below-to-a-token', database: DATABASE });
  await setRolePassword('set-below-to-a-token', expectedToken(T0));
  sts = await startSts({
    users: [{ accessKeyId: KEY_ID, secretAccessKey: SECRET, arn: 'arn:aws:iam::111122223333:user/etl' }],
    roles: [{ arn: ROLE, principals: ['arn:aws:iam::111122223333:user/etl'] }],
  });
});
afterAll(async () => {
  await Promise.all([db?.stop(), sts?.stop()]);
});
afterEach(() => {
  vi.useRealTimers();
});

const configuration = (extra: Record<string, string> = {}) => ({
  auth_method: 'aws_access_key',
  aws_access_key_id: KEY_ID,
  aws_secret_access_key: SECRET,
  aws_region: REGION,
  host: db.host,
  port: String(db.port),
  database: DATABASE,
  user: db.user,
  tls_ca_certificate: db.ca.certificatePem,
  ...extra,
});

const pinClock = (at: number) => vi.useFakeTimers({ toFake: ['Date'], now: at });

describe('postgres source with an AWS access key: IAM database authentication (RDS, Aurora)', () => {
  it('logs in with the token for host, port, user and region, signed at each login', async () => {
    pinClock(T0);
    const { auth, lines } = await connectSource<PostgresSource>(configuration(), 'postgres');
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      const [ssl] = await auth.source.query<{ ssl: boolean }>(
        'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
      );
      expect(ssl).toEqual({ ssl: true });

      // A minute later the database wants the token of that minute: a login signs a new one.
      vi.setSystemTime(T1);
      await setRolePassword(expectedToken(T0), expectedToken(T1));
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      // Neither token, nor the secret, in any line the run wrote.
      expect(lines.join('\n')).not.toContain(expectedToken(T0).split('X-Amz-Signature=')[1]);
      expect(lines.join('\n')).not.toContain(expectedToken(T1).split('X-Amz-Signature=')[1]);
      for (const form of leakForms(SECRET)) expect(lines.join('\n')).not.toContain(form);
    } finally {
      await auth.close();
      await setRolePassword(expectedToken(T1), expectedToken(T0));
    }
  });

  it('a wrong secret signs a token the database refuses: exit 3 naming aws_secret_access_key, nothing secret shown', async () => {
    pinClock(T0);
    const { error, lines } = await probeFailure(configuration({ aws_secret_access_key: WRONG_SECRET }), 'postgres');
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('postgres_iam_token_rejected');
    expect(error.key).toBe('aws_secret_access_key');
    expect(error.hint).toContain('rds-db:connect');
    const wrongSignature = expectedToken(T0, WRONG_SECRET).split('X-Amz-Signature=')[1]!.split('&')[0]!;
    expectNoSecretIn(error, lines, [...leakForms(SECRET), ...leakForms(WRONG_SECRET), wrongSignature]);
  });

  it("with aws_role_arn the role's session signs the token (its session token inside); a token the database refuses then names aws_role_arn", async () => {
    pinClock(T0);
    const { auth } = await connectSource<PostgresSource>(
      configuration({ aws_role_arn: ROLE, aws_sts_endpoint: sts.endpoint }),
      'postgres',
    );
    try {
      // The role's own token is not the role's password yet: refused, and the role is the key to look at.
      const refused = (await rejection(auth.probe())) as Failure;
      expect([refused.exitCode, refused.key, refused.code]).toEqual([3, 'aws_role_arn', 'postgres_iam_token_rejected']);
      expect(refused.hint).toContain(ROLE);
      const session = sts.issued.at(-1)!;
      expect(sts.issued.filter((c) => c.roleArn === ROLE)).toHaveLength(1);
      await setRolePassword(expectedToken(T0), expectedToken(T0, SECRET, session));
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      // Still the one session: the login signed with it again, no second AssumeRole.
      expect(sts.requests.filter((r) => r.action === 'AssumeRole')).toHaveLength(1);
      await setRolePassword(expectedToken(T0, SECRET, session), expectedToken(T0));
    } finally {
      await auth.close();
    }
  });

  it('sslmode=disable is refused before any connection: exit 2 naming sslmode', async () => {
    const before = db.connectionsReceived();
    const { error } = await probeFailure(configuration({ sslmode: 'disable' }), 'postgres');
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('iam_login_without_tls');
    expect(error.key).toBe('sslmode');
    expect(db.connectionsReceived()).toBe(before);
  });

  it("the region is aws_region, else the one an RDS endpoint's name carries; neither is exit 2 naming aws_region", async () => {
    expect(rdsRegion('orders.c9akciq32xyz.eu-west-3.rds.amazonaws.com', undefined)).toBe('eu-west-3');
    expect(rdsRegion('reports.cluster-ro-c9akciq32xyz.us-gov-west-1.rds.amazonaws.com', undefined)).toBe(
      'us-gov-west-1',
    );
    expect(rdsRegion('orders.c9akciq32xyz.cn-north-1.rds.amazonaws.com.cn', undefined)).toBe('cn-north-1');
    expect(rdsRegion('orders.c9akciq32xyz.eu-west-3.rds.amazonaws.com', 'us-east-2')).toBe('us-east-2');
    const { aws_region: _region, ...withoutRegion } = configuration();
    const { error } = await probeFailure(withoutRegion, 'postgres');
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('aws_region');
  });
});
