import { randomBytes } from 'node:crypto';
import { open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { recoveryFilePath, writeRecoveryFile } from '../auth/index.js';
import { ConfigurationError } from '../errors/index.js';
import type { RotationKeeper } from '../connector/index.js';
import type { Logger } from '../log/index.js';

/**
 * Writes a new value of one configuration key back to configuration.json — a rotated refresh token
 * must outlive the process that received it.
 *
 * The rewrite is atomic (temp file in the same folder, fsync, rename, fsync of the folder): a crash
 * leaves the old file or the new one, never half of each. Only the value's text changes: the other
 * keys, their order, the indentation, the line endings and the escapes the user wrote stay as they
 * were; the file keeps its mode (and its owner, when running as root). A symbolic link is followed
 * and the file it points to is rewritten.
 *
 * A file with no write permission bit at all (chmod 0444) is treated as read-only even for root,
 * who could otherwise replace it: a user who marked the configuration read-only meant it. When the
 * value cannot be written, for that or any other reason, it goes to `<files>/<key>.recovery.json`
 * (0600) and a ConfigurationError names both files.
 */

export interface ConfigurationPersisterOptions {
  configurationPath: string;
  /** The project's files/ folder, where a value that cannot be saved is kept (0600). */
  filesDir: string;
  log: Logger;
}

export function createConfigurationPersister(
  options: ConfigurationPersisterOptions,
): (key: string, value: string) => Promise<void> {
  // One write at a time: two rotations in a row must not interleave their read-modify-write.
  let queue: Promise<unknown> = Promise.resolve();
  return (key, value) => {
    const run = queue.then(() => persist(options, key, value));
    queue = run.catch(() => undefined);
    return run;
  };
}

/** The local host's way to keep a rotated secret: configuration.json rewritten, as above. */
export function configurationFileRotation(options: ConfigurationPersisterOptions): RotationKeeper {
  return { keep: createConfigurationPersister(options) };
}

async function persist(
  { configurationPath, filesDir, log }: ConfigurationPersisterOptions,
  key: string,
  value: string,
): Promise<void> {
  let target = configurationPath;
  try {
    target = await realpath(configurationPath);
    const info = await stat(target);
    if ((info.mode & 0o222) === 0) {
      throw Object.assign(
        new Error(`the file is read-only (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')})`),
        { code: 'EREADONLY' },
      );
    }
    const text = await readFile(target, 'utf8');
    await replaceAtomically(target, withValue(text, key, value), info);
    log.info(`saved the new value of '${key}' to ${target}`);
  } catch (error) {
    const reason = reasonOf(error);
    let recovery: string | undefined;
    let recoveryReason: string | undefined;
    try {
      recovery = await writeRecoveryFile(filesDir, key, value, { configuration: target });
    } catch (e) {
      recoveryReason = reasonOf(e);
    }
    const where = recovery
      ? `the new value is kept in ${recovery} (mode 0600): copy its "value" into '${key}' in ${target}, then delete it`
      : `writing it to ${recoveryFilePath(filesDir, key)} failed too (${recoveryReason}): the value is lost when this process ends`;
    throw new ConfigurationError(`could not save the new value of '${key}' to ${target} (${reason}); ${where}`, {
      code: 'configuration_not_saved',
      key,
      hint: `make ${target} writable so a rotated '${key}' can be saved`,
      cause: error,
    });
  }
}

async function replaceAtomically(
  target: string,
  content: string,
  info: Awaited<ReturnType<typeof stat>>,
): Promise<void> {
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const mode = Number(info.mode) & 0o7777;
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      // open()'s mode passes through the umask; the file must end with the original mode exactly.
      await handle.chmod(mode);
      if (process.getuid?.() === 0 && (info.uid !== 0 || info.gid !== 0))
        await handle.chown(Number(info.uid), Number(info.gid));
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // The rename itself is durable only once the folder's entry is on disk.
  const folder = await open(dir, 'r').catch(() => undefined);
  await folder?.sync().catch(() => undefined);
  await folder?.close();
}

/**
 * The configuration's text with `key` set to `value`, changing nothing else. The file is a flat JSON
 * object of strings (checked when it was read), so a small scanner finds each member's spans.
 */
export function withValue(text: string, key: string, value: string): string {
  const members = scanMembers(text);
  const encoded = JSON.stringify(value);
  const matches = members.filter((m) => m.key === key);
  if (matches.length > 0) {
    let out = text;
    // From the end, so earlier spans keep their offsets; every duplicate gets the value.
    for (const m of [...matches].reverse()) out = out.slice(0, m.valueStart) + encoded + out.slice(m.valueEnd);
    return out;
  }
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const close = text.lastIndexOf('}');
  const first = members[0];
  if (!first) {
    const multiline = text.slice(0, close).includes('\n');
    const member = `${JSON.stringify(key)}: ${encoded}`;
    return `${text.slice(0, text.indexOf('{') + 1)}${multiline ? `${newline}  ${member}${newline}` : member}${text.slice(close)}`;
  }
  // Laid out like the first member: the same lead-in (newline and indentation) and the same colon spacing.
  const leadIn = text.slice(text.indexOf('{') + 1, first.keyStart);
  const colon = text.slice(first.keyEnd, first.valueStart);
  const last = members[members.length - 1]!;
  return `${text.slice(0, last.valueEnd)},${leadIn}${JSON.stringify(key)}${colon}${encoded}${text.slice(last.valueEnd)}`;
}

interface Member {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

function scanMembers(text: string): Member[] {
  const members: Member[] = [];
  let i = text.indexOf('{') + 1;
  if (i === 0) throw new Error('the file is not a JSON object');
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = (): [number, number] => {
    if (text[i] !== '"') throw new Error('the file is not a flat JSON object of strings');
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return [start, i];
  };
  for (;;) {
    skip();
    if (i >= text.length) throw new Error('the file is not a complete JSON object');
    if (text[i] === '}') return members;
    const [keyStart, keyEnd] = string();
    skip();
    if (text[i++] !== ':') throw new Error('the file is not a flat JSON object of strings');
    skip();
    const [valueStart, valueEnd] = string();
    members.push({ key: JSON.parse(text.slice(keyStart, keyEnd)) as string, keyStart, keyEnd, valueStart, valueEnd });
    skip();
    if (text[i] === ',') i++;
  }
}

function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  if (e?.code === 'EREADONLY') return String(e.message);
  if (typeof e?.code === 'string') return `${e.code}: ${SYSTEM_REASONS[e.code] ?? 'cannot write'}`;
  return error instanceof Error ? error.message : String(error);
}

const SYSTEM_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'the file or its folder no longer exists',
  EISDIR: 'the path is a folder',
  ENAMETOOLONG: 'file name too long',
};
