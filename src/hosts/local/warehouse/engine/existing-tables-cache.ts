/**
 * A warehouse file's catalogue kept between runs, so that opening the file again skips the
 * catalogue's two statements: on `debug`'s path they run on DuckDB's thread after the instance is
 * made, and each answer waits for a turn of the busy main thread, so the run waited 5–9 ms for them
 * after its probe (docs/benchmarks.md, tenth pass). Kept in the user's cache directory
 * (code-cache/), never in the project.
 *
 * An entry names the file it describes by device, inode, size and modification time in
 * nanoseconds, read while DuckDB holds the file (no other process can open it then), and is used
 * only when all four are the same and no write-ahead log was waiting at open. Any write to the file
 * (by this package or by any other program, rows or DDL) reaches it at a checkpoint, which changes
 * its time; a stale entry is never read, only replaced. It is written after the file is closed, and
 * only by a run that changed no part of the catalogue (warehouse.ts).
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { readCacheEntry, userCacheDirectory, writeCacheEntry } from '../../../../code-cache/index.js';
import type { ExistingTableRows } from './existing-tables.js';

/** Changed when the rows' shape changes: older entries are then not read. */
const FORMAT = 1;

interface Entry {
  format: number;
  file: string;
  rows: ExistingTableRows;
}

/** The file as it is now, or undefined when it cannot be read. */
function fileIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return undefined;
  }
}

function entryName(path: string): string {
  return `${createHash('sha256').update(resolve(path)).digest('hex')}.json`;
}

/** The rows kept for the file at `path` as it is now; undefined when none are, or they are stale. */
export function keptExistingTables(path: string, env: NodeJS.ProcessEnv = process.env): ExistingTableRows | undefined {
  const file = fileIdentity(path);
  if (file === undefined) return undefined;
  const data = readCacheEntry(userCacheDirectory('warehouse', env), entryName(path));
  if (data === undefined) return undefined;
  try {
    const entry = JSON.parse(data.toString('utf8')) as Entry;
    return entry.format === FORMAT && entry.file === file ? entry.rows : undefined;
  } catch {
    return undefined; // a damaged entry: read again from the file, and replaced
  }
}

/** Keeps `rows` for the file at `path` as it is now (closed). Never throws: the next run reads them again. */
export function keepExistingTables(path: string, rows: ExistingTableRows, env: NodeJS.ProcessEnv = process.env): void {
  const file = fileIdentity(path);
  if (file === undefined) return;
  const entry: Entry = { format: FORMAT, file, rows };
  writeCacheEntry(userCacheDirectory('warehouse', env), entryName(path), JSON.stringify(entry));
}
