import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, runToEnd, spawnDaemon, startInTempDir, stopAndRemove } from './daemon.js';

/**
 * A real MIT Kerberos realm (Debian's krb5-kdc and krb5-admin-server) created in a temp directory:
 * `kdb5_util create`, principals added and keytabs exported with `kadmin.local`, and `krb5kdc` in the
 * foreground on an ephemeral loopback port (UDP and TCP). Every program is pointed at the temp files
 * by KRB5_CONFIG and KRB5_KDC_PROFILE in its own environment: /etc/krb5.conf is never read or written.
 *
 * `clockOffset` runs the KDC under libfaketime (Debian's faketime) with its clock moved by that much,
 * which is how a test meets a real "clock skew too great" without touching the machine's clock.
 */

export const REALM = 'CONNECTOR.TEST';

export interface KdcPeer {
  realm: string;
  /** `127.0.0.1:port`, the value of `kerberos_realm_kdc`. */
  address: string;
  port: number;
  /** A krb5.conf naming the realm and its KDC (for tools the test runs, never for the code under test). */
  krb5Config: string;
  /** Adds a principal with a random key (`+requires_preauth`, so a wrong key is told apart at once). */
  addPrincipal(name: string, options?: { maxLife?: string }): Promise<void>;
  /** The principal's keys as a keytab file's bytes (`ktadd -norandkey`: the key stays valid). */
  keytab(name: string): Promise<Buffer>;
  /** Gives the principal a new random key: a keytab exported before no longer works. */
  changeKey(name: string): Promise<void>;
  /** Removes the principal: a keytab exported before names a client the KDC no longer knows. */
  deletePrincipal(name: string): Promise<void>;
  /** Environment for MIT tools (kinit, klist) run by the test against this realm. */
  env(): NodeJS.ProcessEnv;
  log(): string;
  stop(): Promise<void>;
}

export const KRB5KDC = '/usr/sbin/krb5kdc';
const KDB5_UTIL = '/usr/sbin/kdb5_util';
const KADMIN_LOCAL = '/usr/sbin/kadmin.local';
const FAKETIME_LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

export async function start(options: { clockOffset?: string } = {}): Promise<KdcPeer> {
  for (const program of [KRB5KDC, KDB5_UTIL, KADMIN_LOCAL])
    if (!existsSync(program))
      throw new Error(`${program} is missing: npm test installs krb5-kdc and krb5-admin-server as root on Debian`);
  return startInTempDir('connector-auth-kdc-', async (dir, track) => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const krb5Config = join(dir, 'krb5.conf');
    const kdcProfile = join(dir, 'kdc.conf');
    await writeFile(krb5Config, clientProfile(address));
    await writeFile(kdcProfile, kdcProfileText(dir, port));
    await writeFile(join(dir, 'kadm5.acl'), '');
    const env = { ...process.env, KRB5_CONFIG: krb5Config, KRB5_KDC_PROFILE: kdcProfile };
    const admin = async (query: string) => {
      const result = await runToEnd(KADMIN_LOCAL, ['-r', REALM, '-q', query], { env });
      // kadmin.local exits 0 even when the query failed; its complaints are the only sign.
      if (result.code !== 0 || /\b(error|failed|not found|Usage)\b/i.test(result.output))
        throw new Error(`kadmin.local -q "${query}": ${result.output}`);
      return result.output;
    };
    const create = await runToEnd(KDB5_UTIL, ['create', '-s', '-r', REALM, '-P', 'kdc-master-key-for-tests'], { env });
    if (create.code !== 0) throw new Error(`kdb5_util create failed: ${create.output}`);

    const kdcEnv: NodeJS.ProcessEnv = { ...env };
    if (options.clockOffset) {
      if (!existsSync(FAKETIME_LIBRARY))
        throw new Error(`${FAKETIME_LIBRARY} is missing: npm test installs faketime as root on Debian`);
      Object.assign(kdcEnv, { LD_PRELOAD: FAKETIME_LIBRARY, FAKETIME: options.clockOffset, FAKETIME_DONT_RESET: '1' });
    }
    const running = track(spawnDaemon(KRB5KDC, ['-n', '-r', REALM], { env: kdcEnv }));
    const logFile = join(dir, 'kdc.log');
    const kdcLog = async () => (existsSync(logFile) ? await readFile(logFile, 'utf8') : '');
    if (!(await running.until(async () => /commencing operation/.test(await kdcLog()), 15_000)))
      throw new Error(`krb5kdc did not start: ${running.log()} ${await kdcLog()}`);

    let logText = '';
    return {
      realm: REALM,
      address,
      port,
      krb5Config,
      async addPrincipal(name, principalOptions = {}) {
        const life = principalOptions.maxLife ? ` -maxlife "${principalOptions.maxLife}"` : '';
        await admin(`addprinc -randkey +requires_preauth${life} ${name}`);
      },
      async keytab(name) {
        const file = join(dir, `export-${Date.now()}-${Math.random().toString(36).slice(2)}.keytab`);
        await admin(`ktadd -k ${file} -norandkey ${name}`);
        const bytes = await readFile(file);
        await rm(file);
        return bytes;
      },
      async changeKey(name) {
        await admin(`cpw -randkey ${name}`);
      },
      async deletePrincipal(name) {
        await admin(`delprinc -force ${name}`);
      },
      env: () => ({ ...env }),
      log: () => logText + running.log(),
      async stop() {
        logText = await kdcLog();
        await stopAndRemove(running, dir);
      },
    };
  });
}

function clientProfile(address: string): string {
  return `[libdefaults]
  default_realm = ${REALM}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  dns_canonicalize_hostname = false
  rdns = false

[realms]
  ${REALM} = {
    kdc = ${address}
  }
`;
}

function kdcProfileText(dir: string, port: number): string {
  return `[kdcdefaults]
  kdc_listen = 127.0.0.1:${port}
  kdc_tcp_listen = 127.0.0.1:${port}

[realms]
  ${REALM} = {
    database_name = ${join(dir, 'principal')}
    key_stash_file = ${join(dir, 'stash')}
    acl_file = ${join(dir, 'kadm5.acl')}
    max_life = 10h
    max_renewable_life = 0
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:${join(dir, 'kdc.log')}
`;
}
