import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MysqlSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure } from '../helpers/source-session.js';
import { createCa, issueClient, issueServer, type Authority, type Issued } from '../peers/certificates.js';
import {
  MARIADB_START_TIMEOUT_MS,
  mysqlConfiguration,
  start,
  type MariadbPeer,
  type MariadbUser,
} from '../peers/mariadb.js';
import { ownFailures, warningsIn, type OwnFailure } from '../helpers/source-failures.js';
import { sourceConformance } from './conformance.js';

/**
 * The mysql source against a real MariaDB (test/peers/mariadb.ts): three servers, started once —
 * TLS for 127.0.0.1 that also checks client certificates, TLS for another name only, and no TLS —
 * cover the password login and its refusals, every TLS failure, client-certificate login and the
 * IAM token path, with no form of any secret in any error or log line: the failures every source owes
 * through the conformance suite, MySQL's own as rows of FAILURES.
 */

const ALICE: MariadbUser = { name: 'alice', password: 'My-S3cret/+pw?&x' };
const WRONG = 'Wr0ng/+mysql?&y';
/** Logs in by client certificate only: its subject must be CN=reporter. */
const REPORTER: MariadbUser = { name: 'reporter', certificateSubject: '/CN=reporter/O=connector-auth tests' };
/** Checked through PAM: the server asks for the password in clear text (mysql_clear_password). */
const BOB: MariadbUser = { name: 'bob', password: 'B0b-pam/+pw?&z', pam: true };
const DATABASE = 'sales';

let ca: Authority;
let clientCa: Authority;
let reporterCertificate: Issued;
let strangerCertificate: Issued;
let tls: MariadbPeer;
let mismatch: MariadbPeer;
let plain: MariadbPeer;

beforeAll(async () => {
  ca = createCa();
  clientCa = createCa({ commonName: 'connector-auth test client CA' });
  reporterCertificate = issueClient(clientCa, { commonName: 'reporter' });
  strangerCertificate = issueClient(clientCa, { commonName: 'someone-else' });
  const server = issueServer(ca, { hosts: ['127.0.0.1'] });
  // For `localhost` only: mysql2 alone checks an IP host against "localhost" and would accept it for 127.0.0.1.
  const elsewhere = issueServer(ca, { hosts: ['localhost'] });
  const setupSql =
    'CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount DECIMAL(10,2));\n' +
    "INSERT INTO orders VALUES (1, 'new', 10.50), (2, 'paid', 20.00), (9007199254740993, 'big', 1.00);";
  [tls, mismatch, plain] = await Promise.all([
    start({
      ssl: { ...server, clientCaPem: clientCa.certificatePem },
      database: DATABASE,
      users: [ALICE, REPORTER, BOB],
      setupSql,
    }),
    start({ ssl: elsewhere, database: DATABASE, users: [ALICE] }),
    start({ ssl: false, database: DATABASE, users: [ALICE, BOB] }),
  ]);
}, MARIADB_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([tls?.stop(), mismatch?.stop(), plain?.stop()]);
});

const configuration = (peer: MariadbPeer, extra: Record<string, string> = {}) =>
  mysqlConfiguration(peer, ALICE, ca.certificatePem, extra);
const connect = (config: Record<string, string>) => connectSource<MysqlSource>(config, 'mysql');

function secretForms(): string[] {
  return [
    ...leakForms(ALICE.password!),
    ...leakForms(BOB.password!),
    ...leakForms(WRONG),
    ...pemLines(reporterCertificate.privateKeyPem),
    ...pemLines(strangerCertificate.privateKeyPem),
  ];
}

function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, secretForms());
}

describe('mysql source, logins', () => {
  it('password over verified TLS: the probe runs SELECT 1; query() returns row objects, ? values escaped', async () => {
    const { auth, lines, registry } = await connect(configuration(tls));
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(`mysql://alice@127.0.0.1:${tls.port}/sales (TLS)`);
      expect(probe.outcome).toBe('SELECT 1');
      expect(auth.credential.description).toBe("password auth as 'alice'");
      const rows = await auth.source.query<{ id: number | string; status: string; amount: string }>(
        'SELECT id, status, amount FROM orders WHERE status <> ? ORDER BY id',
        ["x' OR '1'='1"],
      );
      // BIGINT beyond 2^53 comes back exact, as a string; DECIMAL as mysql2 gives it (a string).
      expect(rows).toEqual([
        { id: 1, status: 'new', amount: '10.50' },
        { id: 2, status: 'paid', amount: '20.00' },
        { id: '9007199254740993', status: 'big', amount: '1.00' },
      ]);
      const [cipher] = await auth.source.query<{ Value: string }>("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
      expect(cipher!.Value).not.toBe('');
      expect(registry.contains(ALICE.password!)).toBe(true);
      expect(warningsIn(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it("an error of the SQL itself is the server's own, not a connection failure", async () => {
    const { auth } = await connect(configuration(tls));
    try {
      await expect(auth.source.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ errno: 1146 });
      // The connection survives it.
      expect(await auth.source.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
    } finally {
      await auth.close();
    }
  });

  it('mysql_tls=none to a server without TLS: works, and says on every run that nothing is encrypted', async () => {
    const { auth, lines } = await connect(configuration(plain, { mysql_tls: 'none', tls_ca_certificate: '' }));
    try {
      expect((await auth.probe()).target).toBe(`mysql://alice@127.0.0.1:${plain.port}/sales (no TLS)`);
      expect(warningsIn(lines)).toEqual([
        'mysql_tls=none: the connection to 127.0.0.1 is not encrypted; the login exchange, queries and results cross the network in clear',
      ]);
    } finally {
      await auth.close();
    }
  });

  it('tls_skip_verify: encrypted, the certificate unchecked, warned', async () => {
    const { auth, lines } = await connect(configuration(mismatch, { tls_ca_certificate: '', tls_skip_verify: 'true' }));
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(warningsIn(lines)).toHaveLength(1);
      expect(warningsIn(lines)[0]).toMatch(/^TLS verification is OFF for 127.0.0.1 \(tls_skip_verify=true\)/);
    } finally {
      await auth.close();
    }
  });

  it('a client certificate alone (auth_method mtls) logs in the account whose subject it names', async () => {
    const { auth } = await connect(
      mysqlConfiguration(tls, REPORTER, ca.certificatePem, {
        auth_method: 'mtls',
        tls_client_certificate: reporterCertificate.certificatePem,
        tls_client_private_key: reporterCertificate.privateKeyPem,
      }),
    );
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('SELECT CURRENT_USER() AS who')).toEqual([{ who: 'reporter@%' }]);
    } finally {
      await auth.close();
    }
  });
});

/**
 * An account the server checks through PAM (auth_pam with pam_use_cleartext_plugin): the server
 * switches the login to mysql_clear_password, the exchange RDS, Azure and Cloud SQL ask for with
 * tokens, and PAM compares the password byte for byte (test/peers/pam-service.ts).
 */
describe('mysql source, a server that asks for the password in clear text', () => {
  const bob = (peer: MariadbPeer, extra: Record<string, string> = {}) =>
    mysqlConfiguration(peer, BOB, ca.certificatePem, extra);

  it('inside verified TLS the password is sent as asked, and PAM accepts it', async () => {
    expect(await tls.sql("SELECT plugin FROM mysql.user WHERE user = 'bob';\n")).toContain('pam');
    const before = (await tls.pam!.logins()).length;
    const { auth, lines } = await connect(bob(tls));
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('SELECT CURRENT_USER() AS who')).toEqual([{ who: 'bob@%' }]);
      // PAM checked each login (the probe's, the query's): mysql_clear_password was asked and answered.
      const logins = (await tls.pam!.logins()).slice(before);
      expect(logins.length).toBeGreaterThan(0);
      expect(new Set(logins)).toEqual(new Set(['bob']));
      expect(warningsIn(lines)).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('a wrong password: exit 3 naming password, nothing secret shown', async () => {
    const { error, lines } = await probeFailure(bob(tls, { password: WRONG }), 'mysql');
    expect(error).toMatchObject({ exitCode: 3, code: 'mysql_password_rejected', key: 'password' });
    expectClean(error, lines);
  });

  it('without TLS the client refuses to send it: exit 2 naming mysql_tls, and PAM never sees a login', async () => {
    const before = (await plain.pam!.logins()).length;
    const { error, lines } = await probeFailure(bob(plain, { mysql_tls: 'none', tls_ca_certificate: '' }), 'mysql');
    expect(error).toMatchObject({ exitCode: 2, code: 'mysql_cleartext_without_tls', key: 'mysql_tls' });
    expect(error.message).toContain('asks for the password in clear text');
    expect(error.hint).toContain("set 'mysql_tls' to required");
    expect(await plain.pam!.logins()).toHaveLength(before);
    expectClean(error, lines);
  });
});

const IAM_KEYS = {
  auth_method: 'aws_access_key',
  aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  aws_region: 'eu-west-1',
};

/** The configuration without a password: for the methods that bring their own credential. */
function withoutPassword(config: Record<string, string>): Record<string, string> {
  const { password: _password, ...rest } = config;
  return rest;
}

/**
 * What every source owes (test/sources/conformance.ts): the probe, each wrong credential, nothing
 * listening, a silent server, each untrusted identity, and through the CLI the leak check with
 * HOSTILE_SECRET as the wrong password over stdout, stderr, files/ and the warehouse.
 */
sourceConformance({
  source: 'mysql',
  good: () => configuration(tls),
  outcome: 'SELECT 1',
  probeLine: () => `mysql://alice@127.0.0.1:${tls.port}/sales (TLS) → SELECT 1`,
  upserts: 3,
  wrongCredentials: [
    {
      name: 'a wrong password',
      config: (wrong) => configuration(tls, { password: wrong }),
      key: 'password',
      code: 'mysql_password_rejected',
      message: () =>
        `password auth as 'alice': mysql://alice@127.0.0.1:${tls.port}/sales (TLS) failed: the server rejected the password for user 'alice' (error 1045)`,
      hint: ["check 'password'", "'user'"],
    },
    {
      name: 'an unknown user (the server answers as for a wrong password)',
      config: () => configuration(tls, { user: 'nobody' }),
      key: 'password',
      code: 'mysql_password_rejected',
    },
    {
      name: 'a client certificate whose subject is not the account',
      config: () =>
        mysqlConfiguration(tls, REPORTER, ca.certificatePem, {
          auth_method: 'mtls',
          tls_client_certificate: strangerCertificate.certificatePem,
          tls_client_private_key: strangerCertificate.privateKeyPem,
        }),
      key: 'tls_client_certificate',
      code: 'tls_client_certificate_refused',
    },
    {
      name: 'an IAM database token the server does not take',
      config: () => withoutPassword(configuration(tls, IAM_KEYS)),
      key: 'aws_secret_access_key',
      code: 'mysql_token_rejected',
      hint: 'rds-db:connect',
    },
  ],
  unreachable: {
    config: (port) => configuration(tls, { port: String(port) }),
    key: 'host',
    code: 'econnrefused',
    message: { contains: ['connection refused'] },
  },
  silent: (port) => configuration(tls, { port: String(port), timeout_seconds: '0.5' }),
  untrusted: [
    {
      name: 'an untrusted certificate (no tls_ca_certificate)',
      config: () => configuration(tls, { tls_ca_certificate: '' }),
      key: 'tls_ca_certificate',
      code: 'tls_untrusted',
    },
    {
      name: 'a certificate for another name (localhost only, the host 127.0.0.1)',
      config: () => configuration(mismatch),
      key: 'host',
      code: 'tls_host_mismatch',
    },
    {
      name: 'a server without TLS, TLS required (the default)',
      config: () => configuration(plain),
      key: 'mysql_tls',
      code: 'mysql_tls_not_supported',
    },
  ],
  secrets: secretForms,
  connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'mysql',
  schema: () => [{ table: 'orders', primary_key: ['id'] }],
  async update({ source, op }) {
    for (const row of await source.query('SELECT id, status, amount FROM orders ORDER BY id')) await op.upsert('orders', row);
    await op.checkpoint({ done: true });
  },
});
`,
});

/** The failures of MySQL's own: a database refused, TLS choices that cannot do what they say. */
const FAILURES: OwnFailure[] = [
  {
    name: 'a database that does not exist (the server answers as for one the account may not use)',
    config: () => configuration(tls, { database: 'no_such_db' }),
    exitCode: 3,
    code: 'mysql_database_denied',
    key: 'database',
  },
  {
    name: 'a token login without TLS (the token would cross in clear)',
    config: () => withoutPassword(configuration(plain, { ...IAM_KEYS, mysql_tls: 'none' })),
    exitCode: 2,
    code: 'token_login_without_tls',
    key: 'mysql_tls',
  },
  {
    name: 'a client certificate with mysql_tls=none',
    config: () => ({
      ...configuration(plain, { mysql_tls: 'none' }),
      tls_client_certificate: reporterCertificate.certificatePem,
      tls_client_private_key: reporterCertificate.privateKeyPem,
    }),
    exitCode: 2,
    code: 'client_certificate_without_tls',
    key: 'mysql_tls',
  },
];

ownFailures('mysql', FAILURES, expectClean);
