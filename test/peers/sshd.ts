import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd, spawnDaemon, spawnOnFreePort, startInTempDir, stopAndRemove } from './daemon.js';
import { ensureUser, userIds } from './system-account.js';

/**
 * A real OpenSSH server (Debian's openssh-server): `sshd -D -e -f <own config>` on 127.0.0.1 at an
 * ephemeral port, with a host key generated at start, password and public-key login for one
 * dedicated system user, the internal SFTP server, and TCP forwarding when asked (SSH tunnels).
 * Nothing is chrooted; `StrictModes no`, so the temp directory's files need no special owners.
 *
 * Password login checks the system's password database, so the test user is a real account
 * (`cauth-sftp`, created with useradd and given PASSWORD with chpasswd when missing). Tests run as
 * root, in CI too; the user is shared by test files that run in parallel, so creating it tolerates
 * a concurrent creation and the password is one constant.
 */

export const USER = 'cauth-sftp';
/** The test user's password: the same in every test file, since they share the account. */
export const PASSWORD = 'Sftp-S3cret/+pw?&x';
/**
 * A second account whose password has expired (`chage -d 0`): created only by peers started with
 * `expiredUser`, where PAM asks it for a new password right after the old one.
 */
export const EXPIRED_USER = 'cauth-expired';
export const EXPIRED_PASSWORD = 'Exp1red-S3cret/+pw';

export const INSTALL_HINT =
  'OpenSSH server is not installed: npm test installs it as root on Debian; else apt-get install -y openssh-server; /usr/sbin/sshd';

const SSHD = '/usr/sbin/sshd';

export interface SshdOptions {
  /** OpenSSH public key lines that may log in as USER. */
  authorizedKeys?: string[];
  /** Password login (default true). */
  passwordAuthentication?: boolean;
  /**
   * Passwords through PAM's keyboard-interactive conversation instead of the password method
   * (`UsePAM yes`, `KbdInteractiveAuthentication yes`, `PasswordAuthentication no`), as servers that
   * check passwords with PAM are often set up. PAM uses the system's /etc/pam.d/sshd.
   */
  keyboardInteractive?: boolean;
  /** `AuthenticationMethods`, e.g. "password,publickey": a login that needs two methods. */
  authenticationMethods?: string;
  /** Also let EXPIRED_USER log in, creating it (and expiring its password) if needed. */
  expiredUser?: boolean;
  /** `AllowTcpForwarding` (default false): what an SSH tunnel needs. */
  allowTcpForwarding?: boolean;
  /**
   * `LogLevel` (default VERBOSE). DEBUG1 also logs every forwarded channel
   * (`server_request_direct_tcpip: … target <host> port <port>`), for tests that count them.
   */
  logLevel?: 'VERBOSE' | 'DEBUG1';
}

export interface SshdPeer {
  host: string;
  port: number;
  /** "SHA256:…" of the server's host key, from `ssh-keygen -l`. */
  hostKeyFingerprint: string;
  /** The account that may log in, and its password. */
  user: string;
  password: string;
  /** A directory USER owns and may list (absolute), for test files. */
  dataDir: string;
  /** The server's log so far (`-e`, at `logLevel`). */
  log(): string;
  /** TCP connections the server accepted so far (LogLevel VERBOSE logs each; clients are on loopback). */
  connections(): number;
  /** Forwarded channels opened to `port` so far: counted from the log, so `logLevel: 'DEBUG1'` only. */
  channelsTo(port: number): number;
  stop(): Promise<void>;
}

export interface SshKeyPair {
  privateKey: string;
  publicKey: string;
  /** "SHA256:…" of the public key. */
  fingerprint: string;
}

export async function start(options: SshdOptions = {}): Promise<SshdPeer> {
  if (!existsSync(SSHD)) throw new Error(INSTALL_HINT);
  if (process.getuid?.() !== 0)
    throw new Error(
      'the sshd peer needs root: it runs sshd and creates the test account (tests run as root, in CI too)',
    );
  await ensureUser(USER, PASSWORD);
  if (options.expiredUser) await ensureUser(EXPIRED_USER, EXPIRED_PASSWORD, { expired: true });
  // sshd's privilege separation directory; root's, not writable by others.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });

  return startInTempDir('connector-auth-sshd-', async (dir, track) => {
    // The test user reads its authorized keys and lists the data directory under here.
    await chmod(dir, 0o755);
    const hostKey = join(dir, 'ssh_host_ed25519_key');
    await keygen(['-t', 'ed25519', '-N', '', '-C', 'connector-auth test host', '-f', hostKey]);
    const hostKeyFingerprint = fingerprintOf(`${hostKey}.pub`);
    const keysDir = join(dir, 'authorized_keys');
    await mkdir(keysDir, { mode: 0o755 });
    await writeFile(join(keysDir, USER), (options.authorizedKeys ?? []).map((k) => `${k.trim()}\n`).join(''), {
      mode: 0o644,
    });
    const dataDir = join(dir, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    const { uid, gid } = userIds(USER);
    await chown(dataDir, uid, gid);

    const config = join(dir, 'sshd_config');
    const { daemon: running, port } = await spawnOnFreePort(
      'sshd',
      async (port) => {
        await writeFile(config, sshdConfig(port, hostKey, keysDir, options));
        return track(spawnDaemon(SSHD, ['-D', '-e', '-f', config]));
      },
      (daemon) => daemon.until(() => /Server listening on 127\.0\.0\.1 port/.test(daemon.log()), 10_000),
      (log) => /Address already in use|Cannot bind any address/.test(log),
    );
    return {
      host: '127.0.0.1',
      port,
      hostKeyFingerprint,
      user: USER,
      password: PASSWORD,
      dataDir,
      log: running.log,
      connections: () => (running.log().match(/Connection from 127\.0\.0\.1/g) ?? []).length,
      channelsTo: (to) =>
        running
          .log()
          // sshd's -e lines end in CR LF.
          .split(/\r?\n/)
          .filter((line) => line.includes('server_request_direct_tcpip') && line.endsWith(` port ${to}`)).length,
      stop: () => stopAndRemove(running, dir),
    };
  });
}

function sshdConfig(port: number, hostKey: string, keysDir: string, options: SshdOptions): string {
  return [
    `ListenAddress 127.0.0.1`,
    `Port ${port}`,
    `HostKey ${hostKey}`,
    `PidFile none`,
    `StrictModes no`,
    `UsePAM ${options.keyboardInteractive ? 'yes' : 'no'}`,
    `PasswordAuthentication ${options.passwordAuthentication === false || options.keyboardInteractive ? 'no' : 'yes'}`,
    `KbdInteractiveAuthentication ${options.keyboardInteractive ? 'yes' : 'no'}`,
    ...(options.authenticationMethods ? [`AuthenticationMethods ${options.authenticationMethods}`] : []),
    `PubkeyAuthentication yes`,
    `AuthorizedKeysFile ${keysDir}/%u`,
    `PermitRootLogin no`,
    `AllowUsers ${USER}${options.expiredUser ? ` ${EXPIRED_USER}` : ''}`,
    `Subsystem sftp internal-sftp`,
    `AllowTcpForwarding ${options.allowTcpForwarding ? 'yes' : 'no'}`,
    `X11Forwarding no`,
    `PrintMotd no`,
    `LogLevel ${options.logLevel ?? 'VERBOSE'}`,
    // Test files connect many times in parallel; the default 10:30:100 would drop some.
    `MaxStartups 100`,
    '',
  ].join('\n');
}

/** The configuration of an sftp source that logs in to `server` as its user with the password. */
export function sftpConfiguration(server: SshdPeer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'password',
    host: server.host,
    port: String(server.port),
    username: server.user,
    password: server.password,
    host_key_fingerprint: server.hostKeyFingerprint,
    ...extra,
  };
}

/** The same with `key` instead of the password. */
export function sftpKeyConfiguration(
  server: SshdPeer,
  key: SshKeyPair,
  extra: Record<string, string> = {},
): Record<string, string> {
  const { password: _password, ...rest } = sftpConfiguration(server, {
    auth_method: 'ssh_key',
    private_key: key.privateKey,
    ...extra,
  });
  return rest;
}

/** A key pair made by ssh-keygen in a temp directory, which is removed at once. */
export async function generateKeyPair(options: {
  type: 'ed25519' | 'rsa';
  passphrase?: string;
  format?: 'openssh' | 'pem';
  rounds?: number;
}): Promise<SshKeyPair> {
  const dir = await mkdtemp(join(tmpdir(), 'connector-auth-ssh-key-'));
  try {
    const file = join(dir, 'key');
    const args = ['-t', options.type, '-N', options.passphrase ?? '', '-C', 'connector-auth test key', '-f', file];
    if (options.type === 'rsa') args.push('-b', '2048');
    if (options.format === 'pem') args.push('-m', 'PEM');
    // Fewer bcrypt rounds than ssh-keygen's 16 keep each decryption fast in tests.
    if (options.rounds) args.push('-a', String(options.rounds));
    await keygen(args);
    return {
      privateKey: await readFile(file, 'utf8'),
      publicKey: (await readFile(`${file}.pub`, 'utf8')).trim(),
      fingerprint: fingerprintOf(`${file}.pub`),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function fingerprintOf(publicKeyFile: string): string {
  const result = spawnSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyFile], { encoding: 'utf8' });
  const fingerprint = /SHA256:[A-Za-z0-9+/]+/.exec(result.stdout)?.[0];
  if (!fingerprint) throw new Error(`ssh-keygen -l failed: ${result.stderr}`);
  return fingerprint;
}

async function keygen(args: string[]): Promise<void> {
  const result = await runToEnd('ssh-keygen', ['-q', ...args]);
  if (result.code !== 0) throw new Error(`ssh-keygen failed (exit ${result.code}): ${result.output}`);
}
