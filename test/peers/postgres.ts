import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runToEnd, spawnDaemon, spawnOnFreePort, startInTempDir, stopAndRemove } from './daemon.js';

/**
 * A real PostgreSQL (Debian's postgresql-15) in a temp directory: `initdb` with scram-sha-256 and a
 * password file, listening on 127.0.0.1 at an ephemeral port, TLS with a test certificate when asked,
 * and a pg_hba.conf written for the test (`host` or `hostssl`-only, plus client-certificate users).
 * `log_connections` and `log_disconnections` are on, so a test can count the TCP connections the
 * server received and those that have ended.
 *
 * PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres` user and the
 * directory is theirs; as anyone else, they run as that user.
 */

export interface PostgresOptions {
  /** Password of the superuser `user`. */
  password: string;
  /** Created at start, owned by `user`. */
  database: string;
  /** The superuser initdb creates (default `connector`). */
  user?: string;
  /** Server certificate and key (PEM); `clientCaPem` makes the server ask for client certificates. */
  ssl: { certificatePem: string; privateKeyPem: string; clientCaPem?: string } | false;
  /** Only `hostssl` lines for TCP: a connection without TLS is refused by pg_hba.conf (28000). */
  hostsslOnly?: boolean;
  /** Roles (created at start, allowed into `database`) that log in by client certificate (`cert`). */
  certificateUsers?: string[];
  /**
   * GSSAPI (Kerberos) logins: the service keytab (`postgres/<host>@realm`, as krb_server_keyfile)
   * and the roles (created at start) that log in by `gss` with a principal of the same name in `realm`.
   */
  gss?: { keytab: Buffer; realm: string; users: string[] };
}

export interface PostgresPeer {
  host: string;
  port: number;
  user: string;
  database: string;
  /** TCP connections the server received since start (from its log; local admin connections excluded). */
  connectionsReceived(): number;
  /** TCP sessions that have ended since start (from its log). */
  connectionsClosed(): number;
  /** The server's log so far. */
  log(): string;
  stop(): Promise<void>;
}

export const INSTALL_HINT =
  'PostgreSQL is not installed: npm test installs it as root on Debian; else apt-get install -y postgresql-15; binaries in /usr/lib/postgresql/15/bin';

export function postgresBinDir(): string {
  const preferred = '/usr/lib/postgresql/15/bin';
  if (existsSync(join(preferred, 'postgres'))) return preferred;
  // Another Debian major version will do: the tests use nothing specific to 15.
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(root, newest, 'bin');
  throw new Error(INSTALL_HINT);
}

export async function start(options: PostgresOptions): Promise<PostgresPeer> {
  const bin = postgresBinDir();
  const owner = serverUser();
  const user = options.user ?? 'connector';
  const own = async (path: string) => {
    if (owner) await chown(path, owner.uid, owner.gid);
  };
  return startInTempDir('connector-auth-postgres-', async (dir, track) => {
    const data = join(dir, 'data');
    await own(dir);
    const pwfile = join(dir, 'pwfile');
    await writeFile(pwfile, `${options.password}\n`, { mode: 0o600 });
    await own(pwfile);
    const initdb = await runToEnd(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        user,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--no-sync',
        '--encoding=UTF8',
        '--locale=C',
      ],
      owner ? { owner } : {},
    );
    await rm(pwfile);
    if (initdb.code !== 0) throw new Error(`initdb failed (exit ${initdb.code}): ${initdb.output}`);

    const settings = [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'fsync=off',
      '-c',
      'log_connections=on',
      '-c',
      'log_disconnections=on',
    ];
    settings.push('-c', 'max_connections=20', '-c', 'shared_buffers=16MB');
    if (options.ssl) {
      await writeFile(join(dir, 'server.crt'), options.ssl.certificatePem);
      await writeFile(join(dir, 'server.key'), options.ssl.privateKeyPem, { mode: 0o600 });
      for (const file of ['server.crt', 'server.key']) await own(join(dir, file));
      settings.push(
        '-c',
        'ssl=on',
        '-c',
        `ssl_cert_file=${join(dir, 'server.crt')}`,
        '-c',
        `ssl_key_file=${join(dir, 'server.key')}`,
      );
      if (options.ssl.clientCaPem) {
        await writeFile(join(dir, 'client-ca.crt'), options.ssl.clientCaPem);
        await own(join(dir, 'client-ca.crt'));
        settings.push('-c', `ssl_ca_file=${join(dir, 'client-ca.crt')}`);
      }
    }
    if (options.gss) {
      await writeFile(join(dir, 'postgres.keytab'), options.gss.keytab, { mode: 0o600 });
      await own(join(dir, 'postgres.keytab'));
      settings.push('-c', `krb_server_keyfile=${join(dir, 'postgres.keytab')}`);
    }
    await writeFile(join(data, 'pg_hba.conf'), hbaLines(options));
    await own(join(data, 'pg_hba.conf'));

    const { daemon: running, port } = await spawnOnFreePort(
      'postgres',
      // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, nothing waits for them.
      (port) =>
        track(
          spawnDaemon(join(bin, 'postgres'), ['-D', data, '-p', String(port), ...settings], {
            stopSignal: 'SIGINT',
            ...(owner ? { owner } : {}),
          }),
        ),
      (daemon) => daemon.until(() => /ready to accept connections/.test(daemon.log()), 15_000),
      (log) => /Address already in use|could not create any TCP\/IP sockets/.test(log),
    );

    await setUp(dir, port, user, options);
    return {
      host: '127.0.0.1',
      port,
      user,
      database: options.database,
      connectionsReceived: () => (running.log().match(/connection received: host=127\.0\.0\.1/g) ?? []).length,
      connectionsClosed: () => (running.log().match(/disconnection: .* host=127\.0\.0\.1/g) ?? []).length,
      log: running.log,
      stop: () => stopAndRemove(running, dir),
    };
  });
}

/** Local (Unix socket) connections are the peer's own, trusted; TCP ones are what tests exercise. */
function hbaLines(options: PostgresOptions): string {
  const tcp = options.hostsslOnly ? 'hostssl' : 'host';
  const lines = ['local all all trust'];
  for (const role of options.certificateUsers ?? []) lines.push(`hostssl all ${role} 127.0.0.1/32 cert`);
  for (const role of options.gss?.users ?? [])
    lines.push(`host all ${role} 127.0.0.1/32 gss include_realm=0 krb_realm=${options.gss!.realm}`);
  lines.push(`${tcp} all all 127.0.0.1/32 scram-sha-256`);
  return lines.join('\n') + '\n';
}

/** The test database and certificate roles, over the Unix socket as the superuser. */
async function setUp(dir: string, port: number, user: string, options: PostgresOptions): Promise<void> {
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ host: dir, port, user, database: 'postgres', password: '' });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(options.database)} OWNER ${quoteIdentifier(user)}`);
    for (const role of [...(options.certificateUsers ?? []), ...(options.gss?.users ?? [])])
      await admin.query(`CREATE ROLE ${quoteIdentifier(role)} LOGIN`);
  } finally {
    await admin.end();
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** As root: the `postgres` user's ids; otherwise undefined (the current user runs the server). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error(
      'PostgreSQL refuses to run as root and there is no `postgres` user: install postgresql-15 (npm test does, as root on Debian)',
    );
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
