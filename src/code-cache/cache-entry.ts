/**
 * One entry read from, or written into, a cache directory (cache-directory.ts): to a temporary name in the same
 * directory, then renamed, so a reader never sees half of one; the directory made private (0700),
 * the entry readable by its owner only (0600). It never throws: a read-only or full disk only costs
 * the next run a compilation, and the code cache writes at process exit, where nothing may throw.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The entry `name` in `directory`, or undefined when there is none (or it cannot be read). */
export function readCacheEntry(directory: string, name: string): Buffer | undefined {
  try {
    return readFileSync(join(directory, name));
  } catch {
    return undefined;
  }
}

/** Writes `name` in `directory`; whether it was written. */
export function writeCacheEntry(directory: string, name: string, data: string | NodeJS.ArrayBufferView): boolean {
  const path = join(directory, name);
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, path);
    return true;
  } catch {
    removeQuietly(temporary);
    return false;
  }
}

/** Removes a file if it can: one that cannot be removed stays, for a later write to replace. */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // left as it is
  }
}
