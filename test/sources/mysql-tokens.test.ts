import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MysqlSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { connectSource, expectNoSecretIn, probeFailure } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import {
  MARIADB_START_TIMEOUT_MS,
  mysqlConfiguration,
  start,
  type MariadbPeer,
  type MariadbUser,
} from '../peers/mariadb.js';
import { sigv4Signature } from '../peers/sigv4.js';

/**
 * The mysql source logging in with a token as the password, against a real MariaDB over verified
 * TLS: a cloud access token from the metadata peer (Azure Database for MySQL with Entra ID, Cloud
 * SQL IAM login) and an RDS IAM database token signed with AWS keys (RDS and Aurora MySQL).
 *
 * MariaDB cannot ask Entra ID, Google or IAM about a token. What it can check is that the exact
 * token the source should send is what it logs in with: each account's password is set to that
 * token — the one the metadata peer is told to issue, or the RDS token the test works out itself
 * for a pinned moment (its documented form, signed by the test peers' own SigV4 code, not the
 * SDK's) — and a token of any other value fails the login.
 *
 * The RDS account logs in as RDS makes it: the server asks for the token in clear text
 * (mysql_clear_password, RDS's AWSAuthenticationPlugin), here through MariaDB's auth_pam, and PAM
 * compares it byte for byte (test/peers/pam-service.ts); mysql2 answers inside TLS only
 * (mysql-source.ts). The cloud account is mysql_native_password (the server keeps
 * SHA1(SHA1(password)), the client answers a scramble of it): its ~1 kB token is past the 512 bytes
 * pam_exec hands a check, and test/sources/mysql.test.ts shows the clear-text exchange with a password.
 */

const DATABASE = 'orders';
/** About 1 kB, like an Entra ID access token. */
const TOKEN = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${randomBytes(640).toString('base64url')}.${randomBytes(96).toString('base64url')}`;
const CLOUD: MariadbUser = { name: 'app_identity', password: TOKEN };

const REGION = 'us-east-1';
const KEY_ID = 'AKIACONNECTORAUTHMYSQL';
const SECRET = 'mysql/IAM+secret?&EXAMPLE=KEY';
/** Where the clock is pinned, and another moment, whose token the account does not have. */
const T0 = Date.UTC(2026, 10, 23, 9, 30, 15);
const T1 = T0 + 60_000;
const IAM: MariadbUser = { name: 'iam_reader', password: 'set-below-to-the-token-for-T0', pam: true };

let ca: Authority;
let db: MariadbPeer;
let metadata: CloudMetadataPeer;

/**
 * The token RDS expects at `at`, from its documented form: `host:port/?Action=connect&DBUser=…`
 * presigned for rds-db with a 900 s lifetime.
 */
function expectedToken(at: number): string {
  const amzDate = new Date(at).toISOString().replace(/[-:]|\.\d+/g, '');
  const scope = `${amzDate.slice(0, 8)}/${REGION}/rds-db/aws4_request`;
  const query = [
    'Action=connect',
    `DBUser=${encodeURIComponent(IAM.name)}`,
    'X-Amz-Algorithm=AWS4-HMAC-SHA256',
    `X-Amz-Credential=${encodeURIComponent(`${KEY_ID}/${scope}`)}`,
    `X-Amz-Date=${amzDate}`,
    'X-Amz-Expires=900',
    'X-Amz-SignedHeaders=host',
  ].join('&');
  const host = `${db.host}:${db.port}`;
  const canonical = ['GET', '/', query, `host:${host}\n`, 'host', createHash('sha256').update('').digest('hex')].join(
    '\n',
  );
  return `${host}/?${query.replace('&X-Amz-SignedHeaders', `&X-Amz-Signature=${sigv4Signature(SECRET, scope, amzDate, canonical)}&X-Amz-SignedHeaders`)}`;
}

const signatureOf = (token: string) => token.split('X-Amz-Signature=')[1]!.split('&')[0]!;

beforeAll(async () => {
  ca = createCa();
  [db, metadata] = await Promise.all([
    start({ ssl: issueServer(ca, { hosts: ['127.0.0.1'] }), database: DATABASE, users: [CLOUD, IAM] }),
    startMetadata(),
  ]);
  // The RDS token names the server's port, known only now.
  await db.pam!.setPassword(IAM.name, expectedToken(T0));
  // The plugins the header speaks of: the ~1 kB token kept as a hash, the RDS token asked for in clear text.
  const plugins = await db.sql(
    `SELECT user, plugin FROM mysql.user WHERE user IN ('${CLOUD.name}', '${IAM.name}') ORDER BY user;\n`,
  );
  expect(plugins.trim().split('\n').slice(1)).toEqual([`${CLOUD.name}\tmysql_native_password`, `${IAM.name}\tpam`]);
}, MARIADB_START_TIMEOUT_MS);
afterAll(async () => {
  await Promise.all([db?.stop(), metadata?.stop()]);
});
afterEach(() => {
  metadata.reset();
  vi.useRealTimers();
});

const cloud = (extra: Record<string, string>) => {
  const { password: _password, ...config } = mysqlConfiguration(db, CLOUD, ca.certificatePem, {
    metadata_endpoint: metadata.url,
    ...extra,
  });
  return config;
};
const azure = () =>
  cloud({ auth_method: 'azure_managed_identity', resource: 'https://ossrdbms-aad.database.windows.net' });
const gcp = () => cloud({ auth_method: 'gcp_metadata', scope: 'https://www.googleapis.com/auth/sqlservice.login' });

const rds = () => {
  const { password: _password, ...config } = mysqlConfiguration(db, IAM, ca.certificatePem, {
    auth_method: 'aws_access_key',
    aws_access_key_id: KEY_ID,
    aws_secret_access_key: SECRET,
    aws_region: REGION,
  });
  return config;
};

describe('mysql source with a cloud access token as the password', () => {
  it('azure_managed_identity: the token for the database resource logs in as its account, over TLS', async () => {
    metadata.setTokenValue(TOKEN);
    const { auth, lines } = await connectSource<MysqlSource>(azure(), 'mysql');
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('select current_user() as who')).toEqual([{ who: 'app_identity@%' }]);
      const [cipher] = await auth.source.query<{ Value: string }>("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
      expect(cipher!.Value).not.toBe('');
      expect(metadata.tokenRequests[0]!.query.resource).toBe('https://ossrdbms-aad.database.windows.net');
      expect(lines.join('\n')).not.toContain(TOKEN);
    } finally {
      await auth.close();
    }
  });

  it('gcp_metadata: the sqlservice.login token logs in as its account', async () => {
    metadata.setTokenValue(TOKEN);
    const { auth, lines } = await connectSource<MysqlSource>(gcp(), 'mysql');
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('select current_user() as who')).toEqual([{ who: 'app_identity@%' }]);
      expect(metadata.tokenRequests[0]!.query.scopes).toBe('https://www.googleapis.com/auth/sqlservice.login');
      expect(lines.join('\n')).not.toContain(TOKEN);
    } finally {
      await auth.close();
    }
  });

  it('azure_managed_identity, another token: exit 3 naming resource, the token in no message or log', async () => {
    const { error, lines } = await probeFailure(azure(), 'mysql');
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('mysql_token_rejected');
    expect(error.key).toBe('resource');
    expect(error.message).toContain("rejected the access token given as the password for user 'app_identity'");
    // The peer keeps every token it issued: this login's is the last, a random one, not the account's.
    expect(metadata.tokenRequests).toHaveLength(1);
    expect(metadata.issued.at(-1)!.value).not.toBe(TOKEN);
    expectNoSecretIn(
      error,
      lines,
      metadata.issued.flatMap((t) => leakForms(t.value)).filter((f) => f.length >= 8),
    );
  });

  it('gcp_metadata, another token: exit 3 naming scope, the token in no message or log', async () => {
    const { error, lines } = await probeFailure(gcp(), 'mysql');
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('mysql_token_rejected');
    expect(error.key).toBe('scope');
    expectNoSecretIn(
      error,
      lines,
      metadata.issued.flatMap((t) => leakForms(t.value)).filter((f) => f.length >= 8),
    );
  });
});

describe('mysql source with an AWS access key: IAM database authentication (RDS, Aurora MySQL)', () => {
  it('the token for host, port, user and region at the pinned moment logs in', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const before = (await db.pam!.logins()).length;
    const { auth, lines } = await connectSource<MysqlSource>(rds(), 'mysql');
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('select current_user() as who')).toEqual([{ who: 'iam_reader@%' }]);
      // PAM took the token: the server asked for it in clear text, and TLS carried it.
      expect((await db.pam!.logins()).slice(before)).toContain(IAM.name);
      expect(lines.join('\n')).not.toContain(signatureOf(expectedToken(T0)));
      for (const form of leakForms(SECRET)) expect(lines.join('\n')).not.toContain(form);
    } finally {
      await auth.close();
    }
  });

  it("another moment's token is refused: exit 3 naming aws_secret_access_key, nothing secret shown", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T1 });
    const { error, lines } = await probeFailure(rds(), 'mysql');
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('mysql_token_rejected');
    expect(error.key).toBe('aws_secret_access_key');
    expect(error.message).toContain("rejected the IAM database token for user 'iam_reader'");
    expect(error.hint).toContain('rds-db:connect');
    expectNoSecretIn(error, lines, [
      ...leakForms(SECRET),
      signatureOf(expectedToken(T0)),
      signatureOf(expectedToken(T1)),
    ]);
  });
});
