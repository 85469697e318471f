import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where MIT Kerberos looks, for one credential. The GSS-API reads its settings from the process
 * environment when it acquires a ticket and makes a context:
 *
 * - KRB5_CLIENT_KTNAME: the keytab a ticket is fetched with (MIT's client keytab: the library asks
 *   the KDC for a ticket-granting ticket itself, and again when it expires);
 * - KRB5CCNAME: a credential cache of this credential only (a keytab's tickets never land in the
 *   user's own cache), or the existing cache `kerberos_credential_cache` names;
 * - KRB5_CONFIG: with `kerberos_realm_kdc`, a krb5.conf naming the realm's KDC, read before the
 *   machine's own (which still applies to everything it does not override).
 *
 * The environment is the process's, and a process may hold several Kerberos credentials (`serve`
 * answering a test while a sync runs). So the variables are set only for the length of one GSS call
 * (`run`), and set back after it. Calls of all credentials take turns, so each one sees its own
 * settings. A GSS call is short: one trip to the KDC at most.
 *
 * The files go in a temp directory of mode 0700 (the keytab 0600). They are written at the first
 * call, not when the configuration is checked, and removed when the credential closes or the
 * process ends. The environment is a C library's: in a worker thread, `process.env` is the thread's
 * own copy, which MIT never reads, so Kerberos credentials belong to the main thread.
 */

export interface Krb5Settings {
  keytab?: Buffer;
  /** Realm and KDC addresses for a krb5.conf of our own. */
  realmKdc?: { realm: string; kdcs: string[] };
  /** An existing credential cache (`FILE:/tmp/krb5cc_1000`); without a keytab. */
  credentialCache?: string;
}

export interface Krb5Environment {
  /** Runs one GSS call with this credential's settings in the environment, in turn with every other's. */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Removes the files; a call still running keeps its turn until it ends. */
  close(): Promise<void>;
}

const VARIABLES = ['KRB5_CONFIG', 'KRB5_CLIENT_KTNAME', 'KRB5CCNAME'] as const;
type Variables = Partial<Record<(typeof VARIABLES)[number], string>>;
/** Where MIT looks without KRB5_CONFIG: kept after ours, so the machine's settings still apply. */
const DEFAULT_PROFILE = '/etc/krb5.conf';

/** The end of the last GSS call queued, by any credential of the process. */
let turns: Promise<unknown> = Promise.resolve();

function inTurn<T>(call: () => Promise<T>): Promise<T> {
  const result = turns.then(call);
  turns = result.catch(() => undefined);
  return result;
}

export function krb5Environment(settings: Krb5Settings): Krb5Environment {
  return new CredentialEnvironment(settings);
}

/** One credential's variables, its files written at the first call and removed at close. */
class CredentialEnvironment implements Krb5Environment {
  readonly #settings: Krb5Settings;
  #dir: string | undefined;
  #ours: Variables | undefined;
  readonly #removeDir = () => {
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  };

  constructor(settings: Krb5Settings) {
    this.#settings = settings;
  }

  run<T>(call: () => Promise<T>): Promise<T> {
    return inTurn(async () => {
      const before = setVariables(this.#variables());
      try {
        return await call();
      } finally {
        restoreVariables(before);
      }
    });
  }

  async close(): Promise<void> {
    // After the calls already queued, so no call of this credential finds its files gone.
    await inTurn(async () => {
      process.off('exit', this.#removeDir);
      this.#removeDir();
      this.#ours = undefined;
    });
  }

  /** The variables of this credential, its files written the first time. */
  #variables(): Variables {
    if (this.#ours) return this.#ours;
    const { keytab, realmKdc, credentialCache } = this.#settings;
    const next: Variables = {};
    if (keytab || realmKdc) {
      this.#dir = mkdtempSync(join(tmpdir(), 'connector-auth-krb5-'));
      process.once('exit', this.#removeDir);
    }
    const dir = this.#dir;
    if (dir && keytab) {
      const file = join(dir, 'client.keytab');
      writeFileSync(file, keytab, { mode: 0o600 });
      next.KRB5_CLIENT_KTNAME = `FILE:${file}`;
      next.KRB5CCNAME = `FILE:${join(dir, 'ccache')}`;
    } else if (credentialCache) {
      next.KRB5CCNAME = credentialCache;
    }
    if (dir && realmKdc) {
      const file = join(dir, 'krb5.conf');
      writeFileSync(file, profileFor(realmKdc.realm, realmKdc.kdcs), { mode: 0o600 });
      // Read when the call runs: the process's own KRB5_CONFIG, not another credential's.
      next.KRB5_CONFIG = file;
    }
    return (this.#ours = next);
  }
}

/** Puts a credential's variables in the process environment; returns what they replaced. */
function setVariables(set: Variables): Map<(typeof VARIABLES)[number], string | undefined> {
  const before = new Map(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) {
    if (name === 'KRB5_CONFIG' && set.KRB5_CONFIG)
      process.env.KRB5_CONFIG = [set.KRB5_CONFIG, before.get(name) || DEFAULT_PROFILE].join(':');
    else if (set[name] !== undefined) process.env[name] = set[name];
  }
  return before;
}

function restoreVariables(before: Map<(typeof VARIABLES)[number], string | undefined>): void {
  for (const [name, value] of before) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
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
