/**
 * Where a connector's TypeScript is kept once compiled: one file per compiled text, named by the
 * SHA-256 of everything the output depends on (the source text, its path, the compiler's version
 * and options). A changed file has another name, so an entry is never stale; an unchanged one is
 * read back instead of compiled (3 ms instead of the 50–60 ms of starting the compiler).
 *
 * The directory is `typescript/` in the user's cache directory, never the project; entries are
 * written as code-cache/ writes its own (a temporary name, then renamed; an unwritable cache only
 * costs the next run a compilation).
 */
import { createHash } from 'node:crypto';
import { readCacheEntry, userCacheDirectory, writeCacheEntry } from '../../code-cache/index.js';

/**
 * The oldest Node we support: its output runs on all of them. 20.19, not 20: esbuild drops what it
 * thinks the target lacks, and Node 20.10+ has the `with { type: 'json' }` a JSON import needs.
 */
export const TARGET = 'node20.19';

/** Bumped when what the cache holds changes shape. */
const FORMAT = 1;

/** The directory a connector's compiled TypeScript is kept in. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return userCacheDirectory('typescript', env);
}

/** The cache entry's name for one compilation: everything the output depends on, hashed. */
export function cacheKey(parts: { file: string; source: string; compiler: string; options: string }): string {
  return createHash('sha256')
    .update(`${FORMAT}\0${parts.compiler}\0${parts.options}\0${parts.file}\0`)
    .update(parts.source)
    .digest('hex');
}

export function readCached(directory: string, key: string, extension = '.js'): string | undefined {
  return readCacheEntry(directory, `${key}${extension}`)?.toString('utf8');
}

export function writeCached(directory: string, key: string, code: string, extension = '.js'): void {
  writeCacheEntry(directory, `${key}${extension}`, code);
}
