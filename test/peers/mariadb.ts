import { existsSync } from 'node:fs';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runToEnd, spawnDaemon, spawnOnFreePort, startInTempDir, stopAndRemove } from './daemon.js';
import { createPamService, type PamService } from './pam-service.js';
import { userIds } from './system-account.js';

/**
 * A real MariaDB (Debian's mariadb-server) in a temp directory: `mariadb-install-db` into it, then
 * `mariadbd --no-defaults` (no /etc/mysql file is read) on 127.0.0.1 at an ephemeral port with its
 * own Unix socket, TLS with a certificate the test generates, and the users and database the test
 * asks for, created over the socket by the `mariadb` client as root (unix_socket authentication).
 *
 * mariadbd refuses to run as root: it runs as the `mysql` account the package creates, and the
 * directory is that account's.
 *
 * An account with `pam` logs in through the auth_pam plugin with `pam_use_cleartext_plugin`: the
 * server asks the client for its password in clear text (mysql_clear_password), as RDS, Azure
 * Database for MySQL and Cloud SQL ask for a token, and a PAM service of the peer's own checks it
 * (pam-service.ts).
 */

export const INSTALL_HINT =
  'MariaDB is not installed: npm test installs it as root on Debian; else apt-get install -y mariadb-server; /usr/sbin/mariadbd';

const MARIADBD = '/usr/sbin/mariadbd';

/**
 * How long a test file's beforeAll may take to bring its MariaDB servers up: a fresh data directory
 * per server, started side by side, took over 60 s on a loaded 2-core machine. A deadline for a
 * hang only.
 */
export const MARIADB_START_TIMEOUT_MS = 240_000;

export interface MariadbUser {
  name: string;
  /** Password login (mysql_native_password); absent: the user logs in by client certificate only. */
  password?: string;
  /** `REQUIRE SUBJECT '/CN=…'`: the client certificate must name it (besides any password). */
  certificateSubject?: string;
  /** `REQUIRE SSL`: refused without TLS. */
  requireTls?: boolean;
  /**
   * `IDENTIFIED VIA pam`: the server asks for `password` in clear text (mysql_clear_password) and
   * PAM compares it exactly; under 512 bytes (pam_exec's limit).
   */
  pam?: boolean;
}

export interface MariadbOptions {
  /** Server certificate and key (PEM); `clientCaPem` lets the server check client certificates. */
  ssl: { certificatePem: string; privateKeyPem: string; clientCaPem?: string } | false;
  /** Created at start; each user gets every privilege on it. */
  database: string;
  users: MariadbUser[];
  /** SQL run as root after the users exist (tables, rows). */
  setupSql?: string;
}

export interface MariadbPeer {
  host: string;
  port: number;
  database: string;
  /** Runs SQL as root over the socket; answers what the client printed (tab-separated). */
  sql(statements: string): Promise<string>;
  /** The server's log so far. */
  log(): string;
  /** The PAM accounts' side (`pam` users): their passwords, and the logins PAM checked. */
  pam: Pick<PamService, 'setPassword' | 'logins'> | undefined;
  stop(): Promise<void>;
}

export async function start(options: MariadbOptions): Promise<MariadbPeer> {
  if (!existsSync(MARIADBD)) throw new Error(INSTALL_HINT);
  if (process.getuid?.() !== 0)
    throw new Error('the mariadb peer needs root: mariadbd runs as the mysql account (tests run as root, in CI too)');
  const owner = userIds('mysql');
  return startInTempDir('connector-auth-mariadb-', async (dir, track) => {
    const data = join(dir, 'data');
    const socket = join(dir, 'mysqld.sock');
    await mkdir(data);
    // Its own temp directory: bootstraps started in parallel would remove each other's temp tables in /tmp.
    await mkdir(join(dir, 'tmp'));
    await chownTree(dir, owner);
    const pamPasswords = new Map(options.users.filter((u) => u.pam).map((u) => [u.name, u.password ?? '']));
    // Removed when the peer stops, or below if it never starts.
    let pam: PamService | undefined;
    const args = [
      '--no-defaults',
      `--datadir=${data}`,
      `--tmpdir=${join(dir, 'tmp')}`,
      '--user=mysql',
      '--skip-name-resolve',
    ];
    const install = await runToEnd('mariadb-install-db', [
      ...args,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ]);
    if (install.code !== 0) throw new Error(`mariadb-install-db failed (exit ${install.code}): ${install.output}`);
    const settings = [
      `--socket=${socket}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      '--bind-address=127.0.0.1',
      '--innodb-buffer-pool-size=16M',
      '--innodb-log-file-size=8M',
      '--max-connections=50',
      // Each TCP login is logged ("Connect … as …"), so a test can count them.
      '--general-log=1',
      `--general-log-file=${join(dir, 'general.log')}`,
    ];
    if (pamPasswords.size > 0) {
      settings.push('--plugin-load-add=auth_pam', '--pam-use-cleartext-plugin=ON');
      pam = await createPamService(join(dir, 'pam'), pamPasswords);
    }
    if (options.ssl) {
      await writeFile(join(dir, 'server.crt'), options.ssl.certificatePem);
      await writeFile(join(dir, 'server.key'), options.ssl.privateKeyPem, { mode: 0o600 });
      settings.push(`--ssl-cert=${join(dir, 'server.crt')}`, `--ssl-key=${join(dir, 'server.key')}`);
      if (options.ssl.clientCaPem) {
        await writeFile(join(dir, 'client-ca.crt'), options.ssl.clientCaPem);
        settings.push(`--ssl-ca=${join(dir, 'client-ca.crt')}`);
      }
    } else {
      settings.push('--skip-ssl');
    }
    await chownTree(dir, owner);

    try {
      const { daemon: running, port } = await spawnOnFreePort(
        'mariadbd',
        (port) => track(spawnDaemon(MARIADBD, [...args, `--port=${port}`, ...settings])),
        (daemon) => daemon.until(() => /ready for connections/.test(daemon.log()), 180_000),
        (log) => /Address already in use|Can't start server: Bind/.test(log),
      );
      const sql = async (statements: string) => {
        const run = await runToEnd('mariadb', ['--no-defaults', `--socket=${socket}`, '-u', 'root', '--batch'], {
          input: statements,
        });
        if (run.code !== 0) throw new Error(`mariadb client failed (exit ${run.code}): ${run.output}`);
        return run.output;
      };
      await sql(setupStatements(options, pam?.name));
      return {
        host: '127.0.0.1',
        port,
        database: options.database,
        sql,
        log: running.log,
        pam,
        stop: async () => {
          await stopAndRemove(running, dir);
          await pam?.remove();
        },
      };
    } catch (error) {
      await pam?.remove();
      throw error;
    }
  });
}

function setupStatements(options: MariadbOptions, pamService: string | undefined): string {
  const lines = [`CREATE DATABASE ${ident(options.database)};`];
  for (const user of options.users) {
    const account = `${quote(user.name)}@'%'`;
    const identified =
      user.pam && pamService
        ? ` IDENTIFIED VIA pam USING ${quote(pamService)}`
        : user.password
          ? ` IDENTIFIED BY ${quote(user.password)}`
          : '';
    lines.push(`CREATE USER ${account}${identified};`);
    const requirements = user.certificateSubject
      ? ` REQUIRE SUBJECT ${quote(user.certificateSubject)}`
      : user.requireTls
        ? ' REQUIRE SSL'
        : '';
    if (requirements) lines.push(`ALTER USER ${account}${requirements};`);
    lines.push(`GRANT ALL ON ${ident(options.database)}.* TO ${account};`);
  }
  if (options.setupSql) lines.push(`USE ${ident(options.database)};`, options.setupSql);
  return lines.join('\n') + '\n';
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function ident(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

async function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  const result = await runToEnd('chown', ['-R', `${owner.uid}:${owner.gid}`, dir]);
  if (result.code !== 0) throw new Error(`chown failed: ${result.output}`);
  await chown(dir, owner.uid, owner.gid);
}

/** The configuration of a mysql source that logs in to `server` as `user` with its password. */
export function mysqlConfiguration(
  server: MariadbPeer,
  user: MariadbUser,
  caPem: string | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    auth_method: 'password',
    host: server.host,
    port: String(server.port),
    user: user.name,
    database: server.database,
    ...(user.password ? { password: user.password } : {}),
    ...(caPem ? { tls_ca_certificate: caPem } : {}),
    ...extra,
  };
}
