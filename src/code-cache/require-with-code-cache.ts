/**
 * `require()` of one of the bundle's big CommonJS files (zod, ~390 KB; DuckDB's Node API, ~450 KB)
 * with V8's code cache: the bytecode V8 compiled for it in an earlier run is read back instead of
 * compiling the text again. Node 22.1+ does this for every module once `module.enableCompileCache()`
 * is on (bin/ turns it on), and then this is a plain `require()`. Node 20 has no such cache, and
 * there compiling the two files was ~15 ms of a connector's start (docs/benchmarks.md, eighth pass).
 *
 * The entry is written when the process exits, so that it holds the functions the run compiled
 * lazily too, not only the top level; to a temporary name, then renamed, so a reader never sees
 * half of one; a cache that cannot be read or written only costs the next run a compilation.
 *
 * An entry is named by the SHA-256 of the file's text with Node's version: V8 checks its own
 * version and flags, and the text's length, not the text, so an entry for an edited file of the
 * same length would run the old code. One made under other V8 flags is refused by V8 and written
 * again (naming entries by V8's flags tag would load node:v8, 1 ms of every start). A new entry
 * for a file removes the file's other entries (an upgraded package, another Node), which would
 * never be read again.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { userCacheDirectory } from './cache-directory.js';
import { readCacheEntry, removeQuietly, writeCacheEntry } from './cache-entry.js';

/** Bumped when what an entry holds, or how it is named, changes. */
const FORMAT = 1;

/**
 * What became of a file's code cache in this process: read and `accepted`; `missing` or `rejected`
 * by V8 (then written at exit); or `node`'s own compile cache was on and `require()` loaded it.
 */
export type CodeCacheOutcome = 'accepted' | 'missing' | 'rejected' | 'node';

interface Loaded {
  exports: unknown;
  outcome: CodeCacheOutcome;
}

interface Pending {
  script: Script;
  directory: string;
  entry: string;
  /** The start of every entry name this file has had. */
  prefix: string;
}

const loaded = new Map<string, Loaded>();
const pending: Pending[] = [];

/** A CommonJS module's text as Node's loader wraps it: the same five names in scope. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

/** `require(file)` (an absolute path), its bytecode from the code cache where Node keeps none. */
export function requireWithCodeCache(file: string): unknown {
  const known = loaded.get(file);
  if (known) return known.exports;
  const require = nodeModule.createRequire(file);
  if (nodeKeepsCompileCache()) {
    const exports: unknown = require(file);
    loaded.set(file, { exports, outcome: 'node' });
    return exports;
  }
  const bytes = readFileSync(file);
  // The bundle's files are ASCII (scripts/bundle.js): read as Latin-1, the text is the bytes as they
  // are, with no UTF-8 decoding to do. Any other file is decoded as UTF-8.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const directory = userCacheDirectory('v8');
  const prefix = `${sha256(file).slice(0, 16)}-`;
  const entry = `${prefix}${sha256(`${FORMAT}\0${process.version}\0${process.arch}\0`, bytes)}.bin`;
  const cachedData = readCacheEntry(directory, entry);
  const script = new Script(wrap(source), { filename: file, cachedData });
  const outcome = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';

  const module = new nodeModule.Module(file);
  module.filename = file;
  require.cache[file] = module; // as require() does: a cycle back to this file gets its exports so far
  try {
    const run = script.runInThisContext() as (...args: unknown[]) => void;
    run.call(module.exports, module.exports, require, module, file, dirname(file));
  } catch (error) {
    delete require.cache[file];
    throw error;
  }
  module.loaded = true;
  loaded.set(file, { exports: module.exports, outcome });
  if (outcome !== 'accepted') writeAtExit({ script, directory, entry, prefix });
  return module.exports;
}

/** How `file` was loaded by `requireWithCodeCache` in this process, if it was. */
export function codeCacheOutcome(file: string): CodeCacheOutcome | undefined {
  return loaded.get(file)?.outcome;
}

/** Node 22.1+ with `module.enableCompileCache()` on: its cache covers `require()`. */
function nodeKeepsCompileCache(): boolean {
  const node = nodeModule as { getCompileCacheDir?: () => string | undefined };
  return node.getCompileCacheDir?.() !== undefined;
}

function sha256(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

function writeAtExit(entry: Pending): void {
  if (pending.length === 0) process.once('exit', writePending);
  pending.push(entry);
}

function writePending(): void {
  for (const { script, directory, entry, prefix } of pending.splice(0)) {
    if (!writeCacheEntry(directory, entry, script.createCachedData())) continue;
    for (const name of readdirSync(directory))
      if (name.startsWith(prefix) && name.endsWith('.bin') && name !== entry) removeQuietly(join(directory, name));
  }
}
