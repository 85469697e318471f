/**
 * A connector's TypeScript as JavaScript: esbuild's transform (the compiler tsx used, so the same
 * code loads as it did: type-only imports dropped, enums and parameter properties compiled), one
 * file at a time, with an inline source map so that stack traces name the `.ts` lines. Each result
 * is cached by the hash of its input (typescript-cache.ts), and esbuild is loaded only on a miss.
 *
 * Node 22.18+ and 24 can strip types themselves, but measured on Node 24.21 the first `.ts` file
 * costs 90–150 ms (its wasm stripper is instantiated per process; 13–23 ms with the compile cache)
 * against 3 ms for a cached file here, and stripping keeps `import { SomeType }` without `type`,
 * which then fails to link. So every runtime goes through this cache.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TARGET, cacheDirectory, cacheKey, readCached, writeCached } from './typescript-cache.js';

type Esbuild = typeof import('esbuild');
type TransformOptions = import('esbuild').TransformOptions;

const load = createRequire(import.meta.url);
let esbuild: Esbuild | undefined;
let compilerVersion: string | undefined;

function optionsFor(file: string): TransformOptions {
  return {
    loader: extname(file) === '.tsx' ? 'tsx' : 'ts',
    format: 'esm',
    target: TARGET,
    sourcemap: 'inline',
    sourcefile: file,
  };
}

function keyFor(file: string, source: string): string {
  // esbuild's version from its package.json: reading it does not load esbuild.
  compilerVersion ??= (load('esbuild/package.json') as { version: string }).version;
  return cacheKey({ file, source, compiler: `esbuild ${compilerVersion}`, options: TARGET });
}

function compilerError(error: unknown, file: string): Error {
  const first = (error as { errors?: { text: string; location?: { line: number; column: number } | null }[] })
    .errors?.[0];
  if (!first) return error instanceof Error ? error : new Error(String(error));
  const at = first.location ? `:${first.location.line}:${first.location.column + 1}` : '';
  return new SyntaxError(`${file}${at}: ${first.text}`);
}

/** A `.ts` file read, with its cached JavaScript if any, and how to keep what it compiles to. */
interface Lookup {
  file: string;
  source: string;
  cached: string | undefined;
  keep(code: string): string;
}

function lookUp(url: string, directory: string): Lookup {
  const file = fileURLToPath(url);
  const source = readFileSync(file, 'utf8');
  const key = keyFor(file, source);
  const keep = (code: string) => {
    writeCached(directory, key, code);
    return code;
  };
  return { file, source, cached: readCached(directory, key), keep };
}

/** esbuild, loaded at the first cache miss. */
function compiler(): Esbuild {
  return (esbuild ??= load('esbuild') as Esbuild);
}

/** The module at `url` (a `.ts` file) as JavaScript, from the cache or compiled now (synchronously). */
export function transformFileSync(url: string, directory = cacheDirectory()): string {
  const { file, source, cached, keep } = lookUp(url, directory);
  if (cached !== undefined) return cached;
  try {
    return keep(compiler().transformSync(source, optionsFor(file)).code);
  } catch (error) {
    throw compilerError(error, file);
  }
}

/** The same, compiling without blocking (for the loader thread of Node 20's hooks). */
export async function transformFile(url: string, directory = cacheDirectory()): Promise<string> {
  const { file, source, cached, keep } = lookUp(url, directory);
  if (cached !== undefined) return cached;
  try {
    return keep((await compiler().transform(source, optionsFor(file))).code);
  } catch (error) {
    throw compilerError(error, file);
  }
}
