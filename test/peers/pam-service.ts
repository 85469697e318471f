import { randomBytes } from 'node:crypto';
import { appendFile, chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A PAM service of the test's own that accepts exactly the passwords it is given, one per account:
 * what MariaDB's auth_pam asks when an account is `IDENTIFIED VIA pam`. Linux-PAM reads services
 * only from /etc/pam.d, so the service file is written there under a name of its own and removed
 * by `remove()`; what it runs lives in the peer's temp directory.
 *
 * The check is pam_exec with `expose_authtok`: the password the client sent arrives on the
 * script's stdin (NUL-terminated) and must equal the account's file byte for byte. pam_exec passes
 * at most PAM_MAX_RESP_SIZE (512) bytes, so longer passwords are refused here rather than
 * compared in part.
 */

const PAM_MAX_RESP_SIZE = 512;

const CHECK_SCRIPT = `#!/bin/sh
# pam_exec expose_authtok: the password on stdin, PAM_USER the account. Exit 0 accepts.
# Each check is logged by account, so a test can tell that a password never reached the server.
here="$(dirname "$0")"
echo "$PAM_USER" >> "$here/logins"
[ -f "$here/passwords/$PAM_USER" ] || exit 1
tr -d '\\000' | cmp -s - "$here/passwords/$PAM_USER"
`;

export interface PamService {
  /** The name an account's `IDENTIFIED VIA pam USING '…'` gives. */
  name: string;
  /** Sets or changes the password PAM accepts for `account`. */
  setPassword(account: string, password: string): Promise<void>;
  /** The accounts PAM was asked to check, one entry a login. */
  logins(): Promise<string[]>;
  remove(): Promise<void>;
}

/** Writes the service for `passwords` (account → password); its files go under `dir`. */
export async function createPamService(dir: string, passwords: Map<string, string>): Promise<PamService> {
  const setPassword = async (account: string, password: string) => {
    if (Buffer.byteLength(password) >= PAM_MAX_RESP_SIZE)
      throw new Error(`the PAM peer compares passwords under ${PAM_MAX_RESP_SIZE} bytes: ${account}'s is longer`);
    if (!/^[\w.-]+$/.test(account)) throw new Error(`the PAM peer takes plain account names, not ${account}`);
    await writeFile(join(dir, 'passwords', account), password, { mode: 0o644 });
  };
  await mkdir(join(dir, 'passwords'), { recursive: true });
  for (const [account, password] of passwords) await setPassword(account, password);
  await appendFile(join(dir, 'logins'), '', { mode: 0o666 });
  const script = join(dir, 'check-password');
  await writeFile(script, CHECK_SCRIPT);
  await chmod(script, 0o755);
  const name = `connector-auth-test-${randomBytes(6).toString('hex')}`;
  const file = join('/etc/pam.d', name);
  await writeFile(file, `auth required pam_exec.so expose_authtok quiet ${script}\naccount required pam_permit.so\n`);
  return {
    name,
    setPassword,
    logins: async () => (await readFile(join(dir, 'logins'), 'utf8')).split('\n').filter(Boolean),
    remove: () => rm(file, { force: true }),
  };
}
