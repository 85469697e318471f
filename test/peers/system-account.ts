import { spawnSync } from 'node:child_process';
import { runToEnd } from './daemon.js';

/**
 * A system account for a peer whose server checks passwords with the system's password database
 * (sshd, vsftpd through PAM). Each peer has its own dedicated account (`cauth-sftp`, `cauth-ftp`),
 * created with useradd when missing and given its one constant password with chpasswd; it is kept
 * for the next run, since test files running in parallel share it.
 */

const usersReady = new Map<string, Promise<void>>();

/**
 * A test account, created once per process; another test file may be creating it at the same
 * moment, so "already exists" is success and a busy password database is retried. `expired` sets
 * the password's last change to 1970, so that PAM demands a new one at login.
 */
export function ensureUser(name: string, password: string, options: { expired?: boolean } = {}): Promise<void> {
  let ready = usersReady.get(name);
  if (!ready) {
    ready = (async () => {
      if (spawnSync('id', ['-u', name]).status !== 0) {
        // 9: the name is taken (a parallel file won the race); 10: /etc/passwd is locked by it.
        await retried(`useradd ${name}`, () => runToEnd('useradd', ['--create-home', '--shell', '/bin/sh', name]), [9]);
      }
      await retried(`chpasswd for ${name}`, () => runToEnd('chpasswd', [], { input: `${name}:${password}\n` }));
      if (options.expired) await retried(`chage for ${name}`, () => runToEnd('chage', ['-d', '0', name]));
    })();
    usersReady.set(name, ready);
  }
  return ready;
}

/** The account's uid and gid. */
export function userIds(name: string): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** A command that edits the password database, tried again while another holds its lock. */
async function retried(
  what: string,
  run: () => Promise<{ code: number | null; output: string }>,
  alsoFine: number[] = [],
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const result = await run();
    if (result.code === 0 || alsoFine.includes(result.code ?? -1)) return;
    if (attempt >= 50) throw new Error(`${what} failed (exit ${result.code}): ${result.output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
