import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where MIT Kerberos looks, for this run. The GSS-API reads its settings from the process
 * environment when it makes a context, so that is where they go:
 *
 * - KRB5_CLIENT_KTNAME: the keytab a ticket is fetched with (MIT's client keytab: the library asks
 *   the KDC for a ticket-granting ticket itself, and again when it expires);
 * - KRB5CCNAME: a credential cache of this run only (a keytab's tickets never land in the user's own
 *   cache), or the existing cache `kerberos_credential_cache` names;
 * - KRB5_CONFIG: with `kerberos_realm_kdc`, a krb5.conf naming the realm's KDC, read before the
 *   machine's own (which still applies to everything it does not override).
 *
 * The files go in a temp directory of mode 0700 (the keytab 0600), written at the first exchange,
 * not when the configuration is checked, and removed when the credential closes or the process ends.
 * The variables are set back as they were on close. One configuration per process, as the CLI runs.
 */

export interface Krb5Settings {
  keytab?: Buffer;
  /** Realm and KDC addresses for a krb5.conf of our own. */
  realmKdc?: { realm: string; kdcs: string[] };
  /** An existing credential cache (`FILE:/tmp/krb5cc_1000`); without a keytab. */
  credentialCache?: string;
}

export interface Krb5Environment {
  /** Writes the files and sets the variables (once); the GSS calls follow. */
  apply(): void;
  close(): void;
}

const VARIABLES = ['KRB5_CONFIG', 'KRB5_CLIENT_KTNAME', 'KRB5CCNAME'] as const;
/** Where MIT looks without KRB5_CONFIG: kept after ours, so the machine's settings still apply. */
const DEFAULT_PROFILE = '/etc/krb5.conf';

export function krb5Environment(settings: Krb5Settings): Krb5Environment {
  let dir: string | undefined;
  let saved: Map<string, string | undefined> | undefined;
  const removeDir = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  };
  const close = () => {
    process.off('exit', removeDir);
    removeDir();
    for (const [name, value] of saved ?? []) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    saved = undefined;
  };
  return {
    apply() {
      if (saved) return;
      saved = new Map(VARIABLES.map((name) => [name, process.env[name]]));
      const { keytab, realmKdc, credentialCache } = settings;
      if (keytab || realmKdc) {
        dir = mkdtempSync(join(tmpdir(), 'connector-auth-krb5-'));
        process.once('exit', removeDir);
      }
      if (dir && keytab) {
        const file = join(dir, 'client.keytab');
        writeFileSync(file, keytab, { mode: 0o600 });
        process.env.KRB5_CLIENT_KTNAME = `FILE:${file}`;
        process.env.KRB5CCNAME = `FILE:${join(dir, 'ccache')}`;
      } else if (credentialCache) {
        process.env.KRB5CCNAME = credentialCache;
      }
      if (dir && realmKdc) {
        const file = join(dir, 'krb5.conf');
        writeFileSync(file, profileFor(realmKdc.realm, realmKdc.kdcs), { mode: 0o600 });
        process.env.KRB5_CONFIG = [file, process.env.KRB5_CONFIG || DEFAULT_PROFILE].join(':');
      }
    },
    close,
  };
}

/**
 * The realm and its KDCs, nothing else: no DNS lookups for the KDC (the configuration named it), and
 * the service host taken as written before its canonical name (MIT's `fallback`).
 */
function profileFor(realm: string, kdcs: string[]): string {
  return [
    '[libdefaults]',
    `  default_realm = ${realm}`,
    '  dns_lookup_kdc = false',
    '  dns_canonicalize_hostname = fallback',
    '  rdns = false',
    '[realms]',
    `  ${realm} = {`,
    ...kdcs.map((kdc) => `    kdc = ${kdc}`),
    '  }',
    '',
  ].join('\n');
}
