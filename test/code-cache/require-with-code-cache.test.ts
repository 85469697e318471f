import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * src/code-cache/ in real processes: V8's code cache is made by one process and read by the next,
 * so each step is a fresh `node` that loads a CommonJS file through the built module (dist/, which
 * `npm test` builds) and prints what it got and what became of the cache.
 */
const CODE_CACHE = fileURLToPath(new URL('../../dist/code-cache/index.js', import.meta.url));

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  cacheDir = join(dir, 'cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Load {
  value: unknown;
  outcome: string;
}

/** One process: `requireWithCodeCache(file)`, then its exports' `value` and the outcome, as JSON. */
function load(file: string, options: { nodeCompileCache?: string; flags?: string[] } = {}): Load {
  const script = [
    `import * as nodeModule from 'node:module';`,
    options.nodeCompileCache ? `nodeModule.enableCompileCache(${JSON.stringify(options.nodeCompileCache)});` : '',
    `const { requireWithCodeCache, codeCacheOutcome } = await import(${JSON.stringify(CODE_CACHE)});`,
    `const loaded = requireWithCodeCache(${JSON.stringify(file)});`,
    `console.log(JSON.stringify({ value: loaded.value, outcome: codeCacheOutcome(${JSON.stringify(file)}) }));`,
  ].join('\n');
  const run = spawnSync(process.execPath, [...(options.flags ?? []), '--input-type=module', '-e', script], {
    env: { ...process.env, CONNECTOR_AUTH_CACHE_DIR: cacheDir, NODE_COMPILE_CACHE: '' },
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Load;
}

const entries = () => readdirSync(join(cacheDir, 'v8')).filter((name) => name.endsWith('.bin'));

describe('requireWithCodeCache', () => {
  it('writes the bytecode at exit, and the next process runs from it', () => {
    const file = join(dir, 'answer.cjs');
    writeFileSync(file, 'const parts = [4, 2];\nmodule.exports = { value: Number(parts.join("")) };\n');
    expect(load(file)).toEqual({ value: 42, outcome: 'missing' });
    expect(entries()).toHaveLength(1);
    expect(statSync(join(cacheDir, 'v8')).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, 'v8', entries()[0]!)).mode & 0o777).toBe(0o600);
    expect(load(file)).toEqual({ value: 42, outcome: 'accepted' });
    expect(load(file)).toEqual({ value: 42, outcome: 'accepted' });
  });

  it('runs an edited file as edited, even at the same length, and drops the old entry', () => {
    // V8 checks a cache against the text's length, not the text: the entry's name must change.
    const file = join(dir, 'edited.cjs');
    writeFileSync(file, 'module.exports = { value: "before" };\n');
    expect(load(file).value).toBe('before');
    writeFileSync(file, 'module.exports = { value: "after!" };\n');
    expect(load(file)).toEqual({ value: 'after!', outcome: 'missing' });
    expect(entries()).toHaveLength(1);
    expect(load(file)).toEqual({ value: 'after!', outcome: 'accepted' });
  });

  it('gives the file CommonJS as Node does: require from its place, __filename, __dirname, require.cache', () => {
    writeFileSync(join(dir, 'sibling.cjs'), 'module.exports = "sibling";\n');
    const file = join(dir, 'module.cjs');
    writeFileSync(
      file,
      [
        'const { basename } = require("node:path");',
        'module.exports.value = [require("./sibling.cjs"), basename(__filename), __dirname === require("node:path").dirname(__filename),',
        '  require.cache[__filename] === module, module.loaded, this === module.exports];',
      ].join('\n'),
    );
    expect(load(file).value).toEqual(['sibling', 'module.cjs', true, true, false, true]);
  });

  it('recompiles when the entry is damaged, and replaces it', () => {
    const file = join(dir, 'damaged.cjs');
    writeFileSync(file, 'module.exports = { value: [1, 2, 3].map((n) => n * 2) };\n');
    load(file);
    writeFileSync(join(cacheDir, 'v8', entries()[0]!), Buffer.alloc(4096, 0x5a));
    expect(load(file)).toEqual({ value: [2, 4, 6], outcome: 'rejected' });
    expect(load(file)).toEqual({ value: [2, 4, 6], outcome: 'accepted' });
  });

  it('writes the entry again when V8 refuses it, as it does one made under other V8 flags', () => {
    const file = join(dir, 'flags.cjs');
    writeFileSync(file, 'module.exports = { value: typeof structuredClone };\n');
    load(file);
    expect(load(file, { flags: ['--stack-size=900'] })).toEqual({ value: 'function', outcome: 'rejected' });
    expect(load(file, { flags: ['--stack-size=900'] })).toEqual({ value: 'function', outcome: 'accepted' });
    expect(entries()).toHaveLength(1);
  });

  it('loads the file when the cache cannot be written: it only costs the next run a compilation', () => {
    writeFileSync(cacheDir, 'a file where the cache directory should be');
    const file = join(dir, 'plain.cjs');
    writeFileSync(file, 'module.exports = { value: "loaded" };\n');
    expect(load(file)).toEqual({ value: 'loaded', outcome: 'missing' });
    expect(load(file)).toEqual({ value: 'loaded', outcome: 'missing' });
  });

  it.skipIf(!('enableCompileCache' in nodeModule))(
    "leaves the file to Node's own compile cache where it is on (Node 22.1+)",
    () => {
      const file = join(dir, 'node-cache.cjs');
      writeFileSync(file, 'module.exports = { value: "by node" };\n');
      expect(load(file, { nodeCompileCache: join(dir, 'node-cache') })).toEqual({ value: 'by node', outcome: 'node' });
      expect(existsSync(join(cacheDir, 'v8'))).toBe(false);
    },
  );
});
