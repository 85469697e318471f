import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthMethod } from '../../src/auth/index.js';
import { authenticate, type SourceClients } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { PostgresSource } from '../../src/sources/index.js';
import { createCa, issueClient, issueServer, type Authority } from '../peers/certificates.js';
import { start, type PostgresPeer } from '../peers/postgres.js';
import { startTlsPostgres } from '../peers/postgres-tls.js';
import { leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import { sourceConformance } from './conformance.js';
import { connectSource, expectNoSecretIn, probeFailure as probeFailureOf, until } from '../helpers/source-session.js';

/**
 * The postgres source against a real PostgreSQL 15 (scram-sha-256, TLS): three clusters, started
 * once, cover good and bad credentials, every sslmode, untrusted and mismatched certificates, a
 * server without TLS and client-certificate login.
 */

const PASSWORD = 'Pg-S3cret/+pw?&x';
const WRONG = 'Wr0ng/+pass?&y';
const DATABASE = 'app';

let ca: Authority;
let clientCa: Authority;
/** TLS for 127.0.0.1, hostssl only, client certificates accepted for the role `reporter`. */
let tls: PostgresPeer;
/** TLS with a certificate for db.example.test only. */
let mismatch: PostgresPeer;
/** No TLS at all. */
let plain: PostgresPeer;

beforeAll(async () => {
  ca = createCa();
  clientCa = createCa({ commonName: 'connector-auth test client CA' });
  const elsewhere = issueServer(ca, { hosts: ['db.example.test'] });
  [tls, mismatch, plain] = await Promise.all([
    startTlsPostgres({
      ca,
      password: PASSWORD,
      database: DATABASE,
      clientCaPem: clientCa.certificatePem,
      certificateUsers: ['reporter'],
    }),
    start({
      password: PASSWORD,
      database: DATABASE,
      ssl: { certificatePem: elsewhere.certificatePem, privateKeyPem: elsewhere.privateKeyPem },
    }),
    start({ password: PASSWORD, database: DATABASE, ssl: false }),
  ]);
});

afterAll(async () => {
  await Promise.all([tls?.stop(), mismatch?.stop(), plain?.stop()]);
});

function configuration(peer: PostgresPeer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'password',
    host: peer.host,
    port: String(peer.port),
    database: DATABASE,
    user: peer.user,
    password: PASSWORD,
    tls_ca_certificate: ca.certificatePem,
    ...extra,
  };
}

/** A client-certificate login to `peer` as `user`, the certificate for `commonName` issued by `issuer`. */
function mtls(peer: PostgresPeer, commonName: string, issuer = () => clientCa, user = 'reporter') {
  const client = issueClient(issuer(), { commonName });
  return {
    auth_method: 'mtls',
    host: peer.host,
    port: String(peer.port),
    database: DATABASE,
    user,
    tls_ca_certificate: ca.certificatePem,
    tls_client_certificate: client.certificatePem,
    tls_client_private_key: client.privateKeyPem,
  };
}

const connect = (config: Record<string, string>) => connectSource<PostgresSource>(config, 'postgres');
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'postgres');

/** One line, and none of the configured passwords in any form, anywhere a person could read. */
function expectClean(error: Failure, lines: string[], passwords: string[] = [PASSWORD, WRONG]): void {
  expectNoSecretIn(
    error,
    lines,
    passwords.flatMap((password) => leakForms(password)),
  );
}

describe('postgres source, password auth, sslmode=verify-full', () => {
  it('probes with one connection and SELECT 1, then queries through the pool', async () => {
    const { auth, lines } = await connect(configuration(tls));
    try {
      const [received, closed] = [tls.connectionsReceived(), tls.connectionsClosed()];
      const probe = await auth.probe();
      expect(probe.target).toBe(`postgres://connector@127.0.0.1:${tls.port}/${DATABASE} (sslmode=verify-full)`);
      expect(probe.outcome).toBe('SELECT 1');
      // One connection, and closed: the probe leaves no pooled connection behind.
      expect(tls.connectionsReceived() - received).toBe(1);
      await until(() => tls.connectionsClosed() - closed === 1);
      expect(tls.connectionsClosed() - closed).toBe(1);

      expect(await auth.source.query('select current_user')).toEqual([{ current_user: 'connector' }]);
      expect(await auth.source.query<{ n: number }>('select $1::int + 1 as n', [41])).toEqual([{ n: 42 }]);
      const [ssl] = await auth.source.query<{ ssl: boolean }>(
        'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
      );
      expect(ssl).toEqual({ ssl: true });
      expect(auth.credential.description).toBe("password auth as 'connector'");
      expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it("gives back the SQL error of a bad statement unchanged (it is the connector's, exit 1)", async () => {
    const { auth } = await connect(configuration(tls));
    try {
      const error = await rejection(auth.source.query('selec 1'));
      expect((error as unknown as { code: string }).code).toBe('42601');
      expect(error.exitCode).toBeUndefined();
    } finally {
      await auth.close();
    }
  });

  it("a wrong password and no probe first: the pool's login failure is classified as the probe's", async () => {
    const { auth, lines: queryLines } = await connect(configuration(tls, { password: WRONG }));
    try {
      const fromQuery = await rejection(auth.source.query('select 1'));
      expect(fromQuery.exitCode).toBe(3);
      expect(fromQuery.key).toBe('password');
      expectClean(fromQuery, queryLines);
    } finally {
      await auth.close();
    }
  });

  it('unknown database: exit 2 naming database', async () => {
    const { error, lines } = await probeFailure(configuration(tls, { database: 'no_such_db' }));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('database');
    expect(error.message).toContain("database 'no_such_db' does not exist");
    expectClean(error, lines);
  });

  it('sslmode=disable against a hostssl-only server: exit 3 naming sslmode', async () => {
    const { error, lines } = await probeFailure(configuration(tls, { sslmode: 'disable' }));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('sslmode');
    expect(error.message).toContain('accepts only encrypted connections');
    expect(lines.some((l) => l.includes('sslmode=disable') && l.includes('127.0.0.1'))).toBe(true);
    expectClean(error, lines);
  });

  it('sslmode=require works without a CA and warns, naming the host', async () => {
    const { auth, lines } = await connect(configuration(tls, { sslmode: 'require', tls_ca_certificate: '' }));
    try {
      expect((await auth.probe()).target).toContain('(sslmode=require)');
      const warnings = lines
        .map((l) => JSON.parse(l) as { level: string; message: string })
        .filter((l) => l.level === 'WARNING');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(
        /TLS verification is OFF for 127\.0\.0\.1 \(sslmode=require\): anyone on the path can pose as the server/,
      );
    } finally {
      await auth.close();
    }
  });
});

describe('postgres source, roles and privileges (set up by the superuser through the source itself)', () => {
  const ROLE_PASSWORD = 'R0le-pw/+x?&';
  beforeAll(async () => {
    const { auth } = await connect(configuration(tls));
    try {
      // CREATE ROLE without LOGIN: the password is right, the role may not log in.
      await auth.source.query(`create role dormant password '${ROLE_PASSWORD}'`);
      // A role that logs in, and a database it has no CONNECT privilege on.
      await auth.source.query(`create role outsider login password '${ROLE_PASSWORD}'`);
      await auth.source.query('create database locked');
      await auth.source.query('revoke connect on database locked from public');
      // A role allowed one session at a time.
      await auth.source.query(`create role crowded login connection limit 1 password '${ROLE_PASSWORD}'`);
    } finally {
      await auth.close();
    }
  });

  it('a role without LOGIN: exit 3 naming user (SQLSTATE 28000), the password not blamed', async () => {
    const { error, lines } = await probeFailure(configuration(tls, { user: 'dormant', password: ROLE_PASSWORD }));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('postgres_login_not_permitted');
    expect(error.key).toBe('user');
    expect(error.message).toContain("role 'dormant' is not permitted to log in (SQLSTATE 28000)");
    expectClean(error, lines, [ROLE_PASSWORD]);
  });

  it('no CONNECT privilege on the database: exit 3 naming user, the grant in the hint (SQLSTATE 42501)', async () => {
    const { error, lines } = await probeFailure(
      configuration(tls, { user: 'outsider', password: ROLE_PASSWORD, database: 'locked' }),
    );
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('postgres_connect_denied');
    expect(error.key).toBe('user');
    expect(error.message).toContain("user 'outsider' may not connect to database 'locked' (SQLSTATE 42501");
    expect(error.hint).toContain("grant CONNECT on database 'locked'");
    expectClean(error, lines, [ROLE_PASSWORD]);
  });

  it('a role at its connection limit: exit 4 naming host, "try again later" (SQLSTATE 53300), not a credential error', async () => {
    // The first session keeps its pooled connection open, so the role has no slot left.
    const first = await connect(configuration(tls, { user: 'crowded', password: ROLE_PASSWORD }));
    try {
      await first.auth.source.query('select 1');
      const { error, lines } = await probeFailure(configuration(tls, { user: 'crowded', password: ROLE_PASSWORD }));
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('postgres_too_many_connections');
      expect(error.key).toBe('host');
      expect(error.message).toContain('SQLSTATE 53300');
      expect(error.message).toContain('too many connections for role "crowded"');
      expect(error.hint).toContain('try again later');
      expectClean(error, lines, [ROLE_PASSWORD]);
    } finally {
      await first.auth.close();
    }
  });

  it('the same role connects to a database it may use', async () => {
    const { auth } = await connect(configuration(tls, { user: 'outsider', password: ROLE_PASSWORD }));
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(await auth.source.query('select current_user')).toEqual([{ current_user: 'outsider' }]);
    } finally {
      await auth.close();
    }
  });
});

describe('postgres source, host name checks', () => {
  it('the same server passes under verify-ca, which says what it does not check', async () => {
    const { auth, lines } = await connect(configuration(mismatch, { sslmode: 'verify-ca' }));
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(lines.some((l) => l.includes('sslmode=verify-ca') && l.includes('not against the host name'))).toBe(true);
    } finally {
      await auth.close();
    }
    // verify-ca still checks the chain.
    const { error } = await probeFailure(
      configuration(mismatch, { sslmode: 'verify-ca', tls_ca_certificate: createCa().certificatePem }),
    );
    expect(error.exitCode).toBe(5);
    expect(error.key).toBe('tls_ca_certificate');
  });

  it('sslmode=require with a CA checks the chain, as libpq does, and warns that the host name is not', async () => {
    const { auth, lines } = await connect(configuration(mismatch, { sslmode: 'require' }));
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
      expect(
        lines.some((l) => l.includes('"WARNING"') && l.includes('sslmode=require') && l.includes('not its host name')),
      ).toBe(true);
    } finally {
      await auth.close();
    }
    const { error } = await probeFailure(
      configuration(mismatch, { sslmode: 'require', tls_ca_certificate: createCa().certificatePem }),
    );
    expect(error.exitCode).toBe(5);
    expect(error.key).toBe('tls_ca_certificate');
  });
});

describe('postgres source, a server without TLS', () => {
  it('sslmode=disable connects, with a warning every run', async () => {
    const { auth, lines } = await connect(configuration(plain, { sslmode: 'disable' }));
    try {
      await auth.probe();
      expect(await auth.source.query('select current_user')).toEqual([{ current_user: 'connector' }]);
      expect(
        lines.filter(
          (l) => l.includes('"WARNING"') && l.includes('sslmode=disable: the connection to 127.0.0.1 is not encrypted'),
        ),
      ).toHaveLength(1);
    } finally {
      await auth.close();
    }
  });
});

describe('postgres source, a server that is shutting down', () => {
  it('a new connection during a smart shutdown: exit 4 naming host (SQLSTATE 57P03), not a credential error', async () => {
    const closing = await start({ password: PASSWORD, database: DATABASE, ssl: false });
    const config = configuration(closing, { sslmode: 'disable' });
    const held = await connect(config);
    try {
      // A session stays open, so a smart shutdown waits for it and refuses every new connection meanwhile.
      const rows = (await held.auth.source.query('show data_directory')) as Array<{ data_directory: string }>;
      const postmaster = Number(
        (await readFile(join(rows[0]!.data_directory, 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      process.kill(postmaster, 'SIGTERM');
      await until(() => /received smart shutdown request/.test(closing.log()));
      const { error, lines } = await probeFailure(config);
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('postgres_not_ready');
      expect(error.key).toBe('host');
      expect(error.message).toContain('SQLSTATE 57P03');
      expect(error.message).toContain('shutting down');
      expectClean(error, lines);
    } finally {
      await held.auth.close();
      await closing.stop();
    }
  });
});

describe('postgres source, client certificate (auth_method mtls)', () => {
  it('logs in as the role named by the certificate', async () => {
    const { auth } = await connect(mtls(tls, 'reporter'));
    try {
      await auth.probe();
      expect(await auth.source.query('select current_user')).toEqual([{ current_user: 'reporter' }]);
    } finally {
      await auth.close();
    }
  });

  // Once in three runs this hung to the probe's deadline (exit 4): pg's end() after the refused login
  // waited for an 'end' event already gone. Run five times, so that a return of it shows.
  it.each([1, 2, 3, 4, 5])('a certificate from a CA the server does not trust: exit 3 (run %i)', async () => {
    const { error, lines } = await probeFailure(mtls(tls, 'reporter', () => createCa()));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('refused the client certificate');
    expectClean(error, lines);
  });

  it('a role that logs in by password: exit 3 naming auth_method', async () => {
    const { error, lines } = await probeFailure(mtls(tls, 'connector', () => clientCa, 'connector'));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('auth_method');
    expect(error.message).toContain("asks user 'connector' for a password");
    expectClean(error, lines);
  });
});

describe('postgres source, configuration', () => {
  const attempt = async (config: Record<string, string>, source: string = 'postgres') =>
    rejection(authenticate(config, { source: source as keyof SourceClients, registry: new SecretRegistry() }));

  it('names the key that is missing or malformed, before any connection', async () => {
    const before = tls.connectionsReceived();
    const cases: [Record<string, string>, string][] = [
      [{ host: '' }, 'host'],
      [{ port: 'x' }, 'port'],
      [{ sslmode: 'prefer' }, 'sslmode'],
      [{ password: '' }, 'password'],
      [{ tls_skip_verify: 'true' }, 'tls_skip_verify'],
      [{ auth_method: 'bearer', token: 'tok-abcdef' }, 'auth_method'],
    ];
    for (const [extra, key] of cases) {
      const error = await attempt(configuration(tls, extra));
      expect(error.exitCode, key).toBe(2);
      expect(error.key).toBe(key);
      for (const form of leakForms(PASSWORD)) expect(error.message).not.toContain(form);
    }
    expect(tls.connectionsReceived()).toBe(before);
  });

  it('the password method is not accepted by the REST source, and authorizes no HTTP request', async () => {
    const error = await attempt(
      { auth_method: 'password', password: PASSWORD, base_url: 'https://api.example.com' },
      'rest',
    );
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('auth_method');
    const method = await loadAuthMethod('password');
    const credential = await method.create(
      { password: PASSWORD },
      {
        common: {} as never,
        source: { user: 'alice' },
        tls: { hasClientCertificate: false, read: async () => ({ verify: true }) },
        log: createLogger({ write: () => undefined }),
        secrets: new SecretRegistry(),
        now: Date.now,
      },
    );
    expect(credential.description).toBe("password auth as 'alice'");
    expect(JSON.stringify(credential)).not.toContain(PASSWORD);
    // Nothing that could put the password on an HTTP request: only the password capability.
    expect(credential.httpRequest).toBeUndefined();
    expect(credential.password?.read()).toBe(PASSWORD);
  });
});

sourceConformance({
  source: 'postgres',
  good: () => configuration(tls),
  outcome: 'SELECT 1',
  probeLine: () => `postgres://connector@127.0.0.1:${tls.port}/${DATABASE} (sslmode=verify-full) → SELECT 1`,
  upserts: 2,
  wrongCredentials: [
    {
      name: 'a wrong password',
      config: (wrong) => configuration(tls, { password: wrong }),
      key: 'password',
      message: () =>
        `password auth as 'connector': postgres://connector@127.0.0.1:${tls.port}/${DATABASE} (sslmode=verify-full) failed: the server rejected the password for user 'connector' (SQLSTATE 28P01)`,
      hint: ["check 'password'", "'user'"],
    },
    // SCRAM does not tell an unknown user from a wrong password: the same exit 3, naming password.
    {
      name: 'an unknown user',
      config: () => configuration(tls, { user: 'nobody' }),
      key: 'password',
      message: { contains: ["user 'nobody'"] },
    },
    {
      name: 'a client certificate for another name',
      config: () => mtls(tls, 'someone-else'),
      key: 'tls_client_certificate',
      message: { contains: ["the server refused the client certificate (subject 'CN=someone-else"] },
    },
  ],
  unreachable: {
    config: (port) => configuration(tls, { port: String(port) }),
    key: 'host',
    message: /connection refused/,
    hint: "'port'",
  },
  silent: (port) => configuration(tls, { port: String(port), timeout_seconds: '0.5' }),
  untrusted: [
    {
      name: 'a certificate from a CA not in tls_ca_certificate',
      config: () => configuration(tls, { tls_ca_certificate: createCa().certificatePem }),
      key: 'tls_ca_certificate',
      message: () => ({ contains: ['not trusted', `issued by 'CN=${ca.commonName}`] }),
    },
    {
      name: 'a certificate and no tls_ca_certificate',
      config: () => configuration(tls, { tls_ca_certificate: '' }),
      key: 'tls_ca_certificate',
      message: () => ({ contains: ['not trusted', `issued by 'CN=${ca.commonName}`] }),
    },
    {
      name: 'a certificate for another name under verify-full',
      config: () => configuration(mismatch),
      key: 'host',
      message: { contains: ["not valid for host '127.0.0.1' (it names db.example.test)"] },
      hint: 'verify-ca',
    },
    {
      name: 'a server without TLS under verify-full',
      config: () => configuration(plain),
      key: 'sslmode',
      message: { contains: ['does not accept TLS connections'] },
    },
  ],
  secrets: () => [PASSWORD, WRONG],
  connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'postgres',
  schema: () => [{ table: 'roles', primary_key: ['name'] }],
  async update({ source, op }) {
    const rows = await source.query('select rolname as name, rolcanlogin as can_login from pg_roles where rolname = any($1)', [['connector', 'reporter']]);
    for (const row of rows) await op.upsert('roles', row);
    await op.checkpoint({ done: true });
  },
});
`,
});
