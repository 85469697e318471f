import { readFile } from 'node:fs/promises';
import { ConfigurationError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { readKeytab, type KeytabEntry } from './keytab-file.js';

/**
 * The keytab a configuration gives, as bytes: `kerberos_keytab` (base64 of the file, a secret) or
 * `kerberos_keytab_path` (a file). Its forms are registered as secrets before anything can fail:
 * the base64 of a file read from a path, the hex a dump would show, and each key's own bytes.
 */

export interface Keytab {
  /** The key the keytab came from, for messages. */
  key: 'kerberos_keytab' | 'kerberos_keytab_path';
  bytes: Buffer;
  entries: KeytabEntry[];
}

export async function readConfiguredKeytab(
  keys: { kerberos_keytab?: string; kerberos_keytab_path?: string },
  secrets: SecretRegistry,
): Promise<Keytab | undefined> {
  const { kerberos_keytab: inline, kerberos_keytab_path: path } = keys;
  if (inline && path)
    throw new ConfigurationError('invalid configuration: kerberos_keytab and kerberos_keytab_path are both set', {
      code: 'kerberos_keytab_twice',
      key: 'kerberos_keytab_path',
      hint: 'keep one: the keytab inline (base64) or the path of its file',
    });
  if (!inline && !path) return undefined;
  const key = inline ? 'kerberos_keytab' : 'kerberos_keytab_path';
  const bytes = inline ? fromBase64(inline) : await readKeytabFile(path!);
  secrets.registerForms(key, keytabForms(bytes));
  const entries = readKeytab(bytes, key);
  for (const entry of entries) secrets.registerForms(key, keytabForms(entry.key));
  return { key, bytes, entries };
}

function fromBase64(value: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  const bytes = Buffer.from(compact, 'base64');
  // Buffer.from skips what is not base64; a value that does not survive the round trip was not base64.
  if (bytes.length === 0 || bytes.toString('base64').replace(/=+$/, '') !== compact.replace(/=+$/, ''))
    throw new ConfigurationError('invalid configuration: kerberos_keytab is not base64', {
      code: 'kerberos_keytab_unreadable',
      key: 'kerberos_keytab',
      hint: 'set it to the base64 of the keytab file, as `base64 -w0 client.keytab` prints it, or use kerberos_keytab_path',
    });
  return bytes;
}

async function readKeytabFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigurationError(
      code === 'ENOENT'
        ? `invalid configuration: kerberos_keytab_path ${path} does not exist`
        : `invalid configuration: cannot read kerberos_keytab_path ${path} (${code ?? 'error'})`,
      {
        code: 'kerberos_keytab_unreadable',
        key: 'kerberos_keytab_path',
        hint: 'point it at a readable keytab file',
        cause: error,
      },
    );
  }
}

function keytabForms(bytes: Buffer): string[] {
  const hex = bytes.toString('hex');
  return [bytes.toString('base64'), bytes.toString('base64url'), hex, hex.toUpperCase()];
}
