import { stat } from 'node:fs/promises';
import type { Finding } from './finding.js';

/**
 * A file of credentials that other users can read is a credential shared with them; OpenSSH refuses
 * a private key in that state. Every user: an error; the file's group: a warning. (The state file is
 * not checked: it never holds a credential, `debug` refuses one.) Windows has no POSIX modes.
 */
export async function fileModeFindings(file: { path: string; shown: string }): Promise<Finding[]> {
  if (process.platform === 'win32') return [];
  const mode = await stat(file.path).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  if (mode === undefined || (mode & 0o077) === 0) return [];
  const worldReadable = (mode & 0o004) !== 0;
  return [
    {
      severity: worldReadable ? 'error' : 'warning',
      check: 'file-readable-by-others',
      message: `${file.shown} is ${worldReadable ? 'readable by every user' : 'open to its group'} on this machine (mode 0${mode.toString(8)})`,
      where: file.shown,
      hint: `chmod 600 ${file.shown}`,
    },
  ];
}
