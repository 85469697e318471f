import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { portOpen, spawnDaemon, spawnOnFreePort, startInTempDir, stopAndRemove, waitFor } from './daemon.js';
import { ensureUser } from './system-account.js';

/**
 * A real FTP server (Debian's vsftpd) with its own configuration file in a temp directory, on
 * 127.0.0.1 at an ephemeral port, serving a data directory the test fills: explicit FTPS (AUTH TLS)
 * or implicit FTPS with a certificate the test generates, or plain FTP; one local user with a
 * password, and anonymous login when asked. Passive mode only, on loopback.
 *
 * The user is a dedicated system account (`cauth-ftp`, created once with useradd, as the sshd peer
 * does for `cauth-sftp`), checked by Debian's /etc/pam.d/vsftpd. Why not virtual users: vsftpd's
 * own SIGCHLD handler reaps the checker that pam_exec starts, so pam_exec waits for ever (tried:
 * the login hangs at PASS); pam_userdb needs a Berkeley DB file that no tool on a stock Debian
 * writes (db-util is another package); pam_pwdfile is not in Debian's base. The account is the one
 * change to the machine, kept for the next run like sshd's; nothing else outside the temp directory
 * is written.
 *
 * vsftpd needs root (it changes to the user after login). Its default cipher list names 3DES, which
 * Debian 12's OpenSSL no longer offers: `ssl_ciphers=HIGH`. The seccomp sandbox and the network
 * namespaces vsftpd would create are off, so it runs in a container too.
 */

export const USER = 'cauth-ftp';
/** The test user's password: the same in every test file, since they share the account. */
export const PASSWORD = 'Ftp-S3cret/+pw?&x';

export const INSTALL_HINT =
  'vsftpd is not installed: npm test installs it as root on Debian; else apt-get install -y vsftpd; /usr/sbin/vsftpd';

const VSFTPD = '/usr/sbin/vsftpd';

export interface VsftpdOptions {
  /** `explicit` (AUTH TLS offered, not required), `implicit` (TLS from the first byte) or `none`. */
  tls: 'explicit' | 'implicit' | 'none';
  /** Server certificate and key (PEM), for explicit and implicit TLS. */
  certificate?: { certificatePem: string; privateKeyPem: string };
  /** Logins without TLS refused (`force_local_logins_ssl`): what a server that demands FTPS says. */
  requireTls?: boolean;
  /** Anonymous login (`anonymous`, any password) to the same data directory. */
  anonymous?: boolean;
}

export interface VsftpdPeer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The directory the user and anonymous log in to (absolute); root-owned, readable by all. */
  dataDir: string;
  /** The protocol log so far (`log_ftp_protocol`; vsftpd writes `<password>` for PASS). */
  log(): Promise<string>;
  /** Control connections accepted so far. */
  connections(): Promise<number>;
  stop(): Promise<void>;
}

export async function start(options: VsftpdOptions): Promise<VsftpdPeer> {
  if (!existsSync(VSFTPD)) throw new Error(INSTALL_HINT);
  if (process.getuid?.() !== 0)
    throw new Error('the vsftpd peer needs root: vsftpd switches to the logged-in user (tests run as root, in CI too)');
  await ensureUser(USER, PASSWORD);
  return startInTempDir('connector-auth-vsftpd-', async (dir, track) => {
    await chmod(dir, 0o755);
    const dataDir = join(dir, 'data');
    // vsftpd's chroot-less sessions still need an empty root-owned directory of their own.
    const empty = join(dir, 'empty');
    await mkdir(dataDir, { mode: 0o755 });
    await mkdir(empty, { mode: 0o755 });
    const logFile = join(dir, 'vsftpd.log');
    const settings: Record<string, string> = {
      listen: 'YES',
      listen_address: '127.0.0.1',
      background: 'NO',
      local_enable: 'YES',
      pam_service_name: 'vsftpd',
      userlist_enable: 'NO',
      local_root: dataDir,
      anonymous_enable: options.anonymous ? 'YES' : 'NO',
      anon_root: dataDir,
      write_enable: 'NO',
      pasv_enable: 'YES',
      pasv_address: '127.0.0.1',
      port_enable: 'NO',
      secure_chroot_dir: empty,
      seccomp_sandbox: 'NO',
      isolate: 'NO',
      isolate_network: 'NO',
      // A wrong password answers 530 at once; vsftpd's default pause would only slow the tests.
      delay_failed_login: '0',
      max_per_ip: '100',
      vsftpd_log_file: logFile,
      log_ftp_protocol: 'YES',
      xferlog_enable: 'YES',
      syslog_enable: 'NO',
    };
    if (options.tls !== 'none') {
      if (!options.certificate) throw new Error('the vsftpd peer needs a certificate for FTPS');
      const cert = join(dir, 'server.crt');
      const key = join(dir, 'server.key');
      await writeFile(cert, options.certificate.certificatePem);
      await writeFile(key, options.certificate.privateKeyPem, { mode: 0o600 });
      Object.assign(settings, {
        ssl_enable: 'YES',
        implicit_ssl: options.tls === 'implicit' ? 'YES' : 'NO',
        rsa_cert_file: cert,
        rsa_private_key_file: key,
        ssl_ciphers: 'HIGH',
        allow_anon_ssl: 'YES',
        force_local_logins_ssl: options.requireTls ? 'YES' : 'NO',
        force_local_data_ssl: options.requireTls ? 'YES' : 'NO',
        force_anon_logins_ssl: 'NO',
        force_anon_data_ssl: 'NO',
      });
    }
    const config = join(dir, 'vsftpd.conf');
    const { daemon: running, port } = await spawnOnFreePort(
      'vsftpd',
      async (port) => {
        const lines = Object.entries({ ...settings, listen_port: String(port) }).map(([k, v]) => `${k}=${v}`);
        await writeFile(config, `${lines.join('\n')}\n`, { mode: 0o600 });
        return track(spawnDaemon(VSFTPD, [config]));
      },
      (_daemon, port) => waitFor(() => portOpen(port), 10_000),
      // vsftpd says nothing when its bind fails: any failed start may be a port another process took.
      () => true,
    );
    const log = () => readFile(logFile, 'utf8').catch(() => '');
    // The readiness check was a connection too: counted once it is in the log, so that counts start settled.
    await waitFor(async () => (await log()).includes('CONNECT: Client'), 5_000);
    return {
      host: '127.0.0.1',
      port,
      user: USER,
      password: PASSWORD,
      dataDir,
      log,
      connections: async () => ((await log()).match(/CONNECT: Client "127\.0\.0\.1"/g) ?? []).length,
      stop: () => stopAndRemove(running, dir),
    };
  });
}

/** The configuration of an ftp source that logs in to `server` as its user with the password. */
export function ftpConfiguration(
  server: VsftpdPeer,
  caPem: string | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    auth_method: 'password',
    host: server.host,
    port: String(server.port),
    username: server.user,
    password: server.password,
    ...(caPem ? { tls_ca_certificate: caPem } : {}),
    ...extra,
  };
}
