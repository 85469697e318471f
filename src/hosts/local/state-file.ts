/**
 * The state file of the local runner: the connector's checkpointed state as
 * JSON, read at start and replaced atomically after each checkpoint.
 *
 * A write goes to a temporary file in the same directory (so the rename
 * cannot cross file systems), is fsynced, renamed over the state file, and
 * the directory is fsynced so the rename itself survives a crash. A reader
 * therefore sees the old state or the new one, never a torn file.
 *
 * Error messages name the path, never the content: state may hold secrets.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { withoutByteOrderMark } from '../../config/index.js';

function errorCode(error: unknown): string | undefined {
  return error !== null && typeof error === 'object' && 'code' in error ? String(error.code) : undefined;
}

/**
 * The state at `path`: `{}` when there is no file yet. Read synchronously, as a command's start
 * reads its small files (config/file/read-text-file.ts says why).
 */
export async function readState(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return {};
    if (errorCode(error) === 'EISDIR')
      throw new Error(`the state file ${path} is a directory, not a file`, { cause: error });
    throw new Error(`cannot read the state file ${path} (${errorCode(error) ?? 'unknown error'})`, { cause: error });
  }
  text = withoutByteOrderMark(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse quotes the text it choked on: not repeated here.
    throw new Error(`the state file ${path} is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`the state file ${path} does not hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Replaces the state file with `state` (JSON, 2-space indent) atomically.
 * A new file gets mode 0600; a replaced file keeps its mode. The run has checked the state already
 * (a JSON object without a secret: connector/definition/state-guard.ts).
 */
export async function writeStateAtomically(path: string, state: unknown): Promise<void> {
  const json = JSON.stringify(state, null, 2) as string | undefined;
  if (json === undefined) throw new Error(`the state for ${path} cannot be serialized to JSON`);

  const directory = dirname(path);
  await mkdir(directory, { recursive: true });
  let mode = 0o600;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    // no file yet
  }

  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, 'wx', 0o600);
    await handle.chmod(mode);
    await handle.writeFile(json, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, path);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw new Error(`cannot write the state file ${path} (${errorCode(error) ?? 'unknown error'})`, { cause: error });
  }
  await syncDirectory(directory);
}

/** Makes a rename in `directory` durable; a no-op where directories cannot be opened (Windows). */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // best effort: some platforms and file systems do not support it
  } finally {
    await handle?.close().catch(() => {});
  }
}
