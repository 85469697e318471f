import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type Authenticated, type SourceClients } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { PostgresSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { rejection, type Failure } from '../helpers/rejection.js';
import {
  expectNoSecretIn,
  pemLines,
  probeFailure as probeFailureOf,
  recordingLogger,
  tunnelKeys,
} from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { freePort } from '../peers/daemon.js';
import { start as startPostgres, type PostgresPeer } from '../peers/postgres.js';
import { generateKeyPair, start as startSshd, type SshKeyPair, type SshdPeer } from '../peers/sshd.js';

/**
 * The postgres source through an SSH tunnel: a real OpenSSH bastion (test/peers/sshd.ts, TCP
 * forwarding on) in front of a real PostgreSQL (test/peers/postgres.ts) whose certificate names
 * `localhost` only. pg connects to the tunnel's 127.0.0.1 listener, so a passing verify-full proves
 * that TLS checked the real host name, not the listener's address.
 */

const DB_PASSWORD = 'Pg-Tunnel/+pw?&x';
const DATABASE = 'app';

let ca: Authority;
let bastion: SshdPeer;
/** TCP forwarding off. */
let closedBastion: SshdPeer;
let database: PostgresPeer;
/** A certificate for db.example.test only. */
let elsewhere: PostgresPeer;
let key: SshKeyPair;
let stranger: SshKeyPair;
/** Encrypted with PASSPHRASE. */
let encrypted: SshKeyPair;
const PASSPHRASE = 'tunnel key/+phrase?&z';

beforeAll(async () => {
  ca = createCa();
  [key, stranger, encrypted] = await Promise.all([
    generateKeyPair({ type: 'ed25519' }),
    generateKeyPair({ type: 'ed25519' }),
    generateKeyPair({ type: 'ed25519', passphrase: PASSPHRASE, rounds: 4 }),
  ]);
  const localhostOnly = issueServer(ca, { hosts: ['localhost'] });
  const other = issueServer(ca, { hosts: ['db.example.test'] });
  [bastion, closedBastion, database, elsewhere] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey, encrypted.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
    }),
    startSshd({ authorizedKeys: [key.publicKey], allowTcpForwarding: false, passwordAuthentication: false }),
    startPostgres({
      password: DB_PASSWORD,
      database: DATABASE,
      ssl: { certificatePem: localhostOnly.certificatePem, privateKeyPem: localhostOnly.privateKeyPem },
    }),
    startPostgres({
      password: DB_PASSWORD,
      database: DATABASE,
      ssl: { certificatePem: other.certificatePem, privateKeyPem: other.privateKeyPem },
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([bastion?.stop(), closedBastion?.stop(), database?.stop(), elsewhere?.stop()]);
});

function configuration(
  db: PostgresPeer,
  through: SshdPeer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    auth_method: 'password',
    // The name the certificate has; the bastion resolves it.
    host: 'localhost',
    port: String(db.port),
    database: DATABASE,
    user: db.user,
    password: DB_PASSWORD,
    tls_ca_certificate: ca.certificatePem,
    ...tunnelKeys(through, key),
    ...extra,
  };
}

const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'postgres');

/** One line, a hint, and no form of the database password or of either private key anywhere. */
function expectClean(error: Failure, lines: string[]): void {
  const forms = [
    ...leakForms(DB_PASSWORD),
    ...leakForms(key.privateKey),
    ...pemLines(key.privateKey),
    ...pemLines(stranger.privateKey),
  ];
  expectNoSecretIn(error, lines, forms);
}

describe('postgres through an SSH tunnel', () => {
  it('verify-full through the tunnel: TLS checks the real host name; queries use the tunnel too', async () => {
    const lines: string[] = [];
    const auth = (await authenticate(configuration(database, bastion), {
      source: 'postgres' as keyof SourceClients,
      registry: new SecretRegistry(),
      log: recordingLogger(lines),
    })) as unknown as Authenticated<PostgresSource>;
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(
        `postgres://connector@localhost:${database.port}/${DATABASE} (sslmode=verify-full) via ssh://cauth-sftp@127.0.0.1:${bastion.port}`,
      );
      expect(probe.outcome).toBe('SELECT 1');
      expect(await auth.source.query<{ n: number }>('select $1::int + 1 as n', [41])).toEqual([{ n: 42 }]);
      const [row] = await auth.source.query<{ ssl: boolean }>(
        'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
      );
      expect(row).toEqual({ ssl: true });
      // The bastion opened the channels (sshd logs direct-tcpip requests at VERBOSE).
      expect(bastion.log()).toMatch(/Accepted publickey for cauth-sftp/);
      expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('an encrypted bastion key logs in with ssh_tunnel_private_key_passphrase; missing or wrong, exit 2 before any connection', async () => {
    const lines: string[] = [];
    const withKey = (extra: Record<string, string>) =>
      configuration(database, bastion, { ssh_tunnel_private_key: encrypted.privateKey, ...extra });
    const auth = await authenticate(withKey({ ssh_tunnel_private_key_passphrase: PASSPHRASE }), {
      source: 'postgres' as keyof SourceClients,
      registry: new SecretRegistry(),
      log: recordingLogger(lines),
    });
    try {
      expect((await auth.probe()).outcome).toBe('SELECT 1');
    } finally {
      await auth.close();
    }
    const connections = bastion.connections();
    for (const [passphrase, code] of [
      [undefined, 'ssh_key_passphrase_missing'],
      ['not the passphrase', 'ssh_key_passphrase_wrong'],
    ] as const) {
      const error = await rejection(
        authenticate(withKey(passphrase ? { ssh_tunnel_private_key_passphrase: passphrase } : {}), {
          source: 'postgres' as keyof SourceClients,
          registry: new SecretRegistry(),
          log: recordingLogger(lines),
        }),
      );
      expect(error.exitCode).toBe(2);
      expect(error.key).toBe('ssh_tunnel_private_key_passphrase');
      expect(error.code).toBe(code);
      expectNoSecretIn(error, lines, [...leakForms(PASSPHRASE), ...pemLines(encrypted.privateKey)]);
    }
    expect(bastion.connections()).toBe(connections);
  });

  it('a certificate for another name is still refused through the tunnel: exit 5 naming host', async () => {
    const { error, lines } = await probeFailure(configuration(elsewhere, bastion));
    expect(error.exitCode).toBe(5);
    expect(error.key).toBe('host');
    expect(error.message).toContain("not valid for host 'localhost' (it names db.example.test)");
    expectClean(error, lines);
  });

  it('a key the bastion does not know: exit 3 naming ssh_tunnel_private_key', async () => {
    const { error, lines } = await probeFailure(
      configuration(database, bastion, { ssh_tunnel_private_key: stranger.privateKey }),
    );
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('ssh_tunnel_private_key');
    expect(error.message).toBe(
      `ssh tunnel ssh://cauth-sftp@127.0.0.1:${bastion.port} → localhost:${database.port} failed: the bastion did not accept the key for user 'cauth-sftp'`,
    );
    expectClean(error, lines);
  });

  it('a bastion that does not answer: exit 4 naming ssh_tunnel_host', async () => {
    const { error, lines } = await probeFailure(
      configuration(database, bastion, { ssh_tunnel_port: String(await freePort()) }),
    );
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('ssh_tunnel_host');
    expect(error.message).toContain('connection refused');
    expectClean(error, lines);
  });

  it('a bastion whose host key is not ssh_tunnel_host_key_fingerprint: exit 5 showing the one presented', async () => {
    const { error, lines } = await probeFailure(
      configuration(database, bastion, { ssh_tunnel_host_key_fingerprint: stranger.fingerprint }),
    );
    expect(error.exitCode).toBe(5);
    expect(error.key).toBe('ssh_tunnel_host_key_fingerprint');
    expect(error.message).toContain(
      `the bastion's host key (ssh-ed25519 ${bastion.hostKeyFingerprint}) does not match`,
    );
    expectClean(error, lines);
  });

  it('a bastion that forbids forwarding: exit 4 naming ssh_tunnel_user', async () => {
    const { error, lines } = await probeFailure(configuration(database, closedBastion));
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_forwarding_refused');
    expect(error.key).toBe('ssh_tunnel_user');
    expectClean(error, lines);
  });

  it('a database the bastion cannot reach: exit 4 naming host', async () => {
    const { error, lines } = await probeFailure(configuration(database, bastion, { port: String(await freePort()) }));
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('host');
    expect(error.message).toContain('the bastion could not connect to localhost');
    expectClean(error, lines);
  });

  it('the opt-out connects with a warning; configuration errors are exit 2 before any connection', async () => {
    const lines: string[] = [];
    const auth = await authenticate(
      configuration(database, bastion, { ssh_tunnel_host_key_fingerprint: '', ssh_tunnel_skip_host_key_check: 'true' }),
      {
        source: 'postgres' as keyof SourceClients,
        registry: new SecretRegistry(),
        log: recordingLogger(lines),
      },
    );
    try {
      await auth.probe();
      const warnings = lines.filter((l) => l.includes('"WARNING"'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('ssh_tunnel_skip_host_key_check=true');
    } finally {
      await auth.close();
    }

    const cases: [Record<string, string>, string, string][] = [
      [{ ssh_tunnel_host_key_fingerprint: '' }, 'ssh_tunnel_host_key_fingerprint', 'ssh_host_key_fingerprint_missing'],
      [{ ssh_tunnel_host_key_fingerprint: 'SHA256:short' }, 'ssh_tunnel_host_key_fingerprint', 'malformed_key'],
      [{ ssh_tunnel_user: '' }, 'ssh_tunnel_user', 'missing_key'],
      [{ ssh_tunnel_private_key: '' }, 'ssh_tunnel_private_key', 'missing_key'],
      [{ ssh_tunnel_private_key: 'not a key' }, 'ssh_tunnel_private_key', 'ssh_key_unreadable'],
      [{ ssh_tunnel_port: 'x' }, 'ssh_tunnel_port', 'malformed_key'],
    ];
    const connections = bastion.connections();
    for (const [extra, keyName, code] of cases) {
      const error = await rejection(
        authenticate(configuration(database, bastion, extra), {
          source: 'postgres' as keyof SourceClients,
          registry: new SecretRegistry(),
        }),
      );
      expect(error.exitCode, keyName).toBe(2);
      expect(error.key).toBe(keyName);
      expect(error.code).toBe(code);
    }
    const missing = await rejection(
      authenticate(configuration(database, bastion, { ssh_tunnel_host_key_fingerprint: '' }), {
        source: 'postgres' as keyof SourceClients,
        registry: new SecretRegistry(),
      }),
    );
    expect(missing.hint).toContain(`ssh-keyscan -p ${bastion.port} 127.0.0.1 | ssh-keygen -lf -`);
    expect(bastion.connections()).toBe(connections);
  });
});
