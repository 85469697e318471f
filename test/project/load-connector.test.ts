import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

/**
 * How a connector project's TypeScript is loaded (src/project/loader/connector-hooks.ts): compiled by
 * esbuild, cached by content hash in CONNECTOR_AUTH_CACHE_DIR, with what tsx gave connectors
 * before (type-only imports dropped, enums, `./x.js` finding `x.ts`). Through the built CLI,
 * with a source that needs no network.
 */

let root: string;
let cache: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-load-'));
  cache = join(root, 'cache');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const SOURCE = `const local = defineSource({
  name: 'none',
  summary: 'no network',
  keys: z.object({}),
  needs: ['httpRequest'],
  async connect() {
    return { async probe() { return { target: 'nothing', outcome: 'ok', elapsedMs: 0 }; }, async close() {} };
  },
});`;

async function project(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  await writeFile(
    join(dir, 'configuration.json'),
    JSON.stringify({ auth_method: 'bearer', token: 'load-test-token-1' }),
  );
  return dir;
}

function debug(dir: string, extra: string[] = []) {
  return cli(['debug', dir, ...extra], { env: { CONNECTOR_AUTH_CACHE_DIR: cache } });
}

async function rows(dir: string, sql: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  try {
    const connection = await instance.connect();
    const result = (await connection.runAndReadAll(sql)).getRowsJS();
    connection.closeSync();
    return result;
  } finally {
    instance.closeSync();
  }
}

async function cached(): Promise<string[]> {
  return (await readdir(join(cache, 'typescript')).catch(() => [])).filter((name) => name.endsWith('.js'));
}

describe('loading connector.ts', () => {
  it('TypeScript as tsx loaded it: a helper imported as ./helper.js, an enum, a type imported without `type`, import.meta.url', async () => {
    const dir = await project('features', {
      'connector.ts': `import { defineConnector, defineSource, z, ConnectorDefinition } from 'connector-auth';
import { label, Kind } from './helper.js';
import { readFileSync } from 'node:fs';
${SOURCE}
const seed = JSON.parse(readFileSync(new URL('./seed.json', import.meta.url), 'utf8')) as { n: number };
const unused: ConnectorDefinition<never, never> | undefined = undefined;
export default defineConnector({
  source: local,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1, label: label(Kind.Big), n: seed.n, typed: unused === undefined });
    await op.checkpoint({ done: true });
  },
});
`,
      'helper.ts': `export enum Kind { Small = 1, Big = 2 }
export function label(kind: Kind): string { return \`kind-\${Kind[kind]}\`; }
`,
      'seed.json': '{"n": 42}',
    });
    const run = await debug(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(await rows(dir, 'SELECT label, n, typed FROM tester.items')).toEqual([['kind-Big', 42n, true]]);
  });

  it('a changed file is compiled again, never served from the cache; an unchanged one is read back', async () => {
    const connector = (value: string) => `import { defineConnector, defineSource, z } from 'connector-auth';
${SOURCE}
export default defineConnector({
  source: local,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1, value: '${value}' });
    await op.checkpoint({ done: true });
  },
});
`;
    const dir = await project('edits', { 'connector.ts': connector('first') });
    expect((await debug(dir)).code).toBe(0);
    const afterFirst = await cached();
    expect((await debug(dir)).code).toBe(0);
    expect(await cached()).toEqual(afterFirst); // the same text: no new entry
    expect(await rows(dir, 'SELECT value FROM tester.items')).toEqual([['first']]);

    await writeFile(join(dir, 'connector.ts'), connector('second'));
    const run = await debug(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(await rows(dir, 'SELECT value FROM tester.items')).toEqual([['second']]);
    expect((await cached()).length).toBe(afterFirst.length + 1);
  });

  it('the cache holds the compiled file, its source map naming the .ts file it came from', async () => {
    const dir = await project('mapped', {
      'connector.ts': `import { defineConnector, defineSource, z } from 'connector-auth';
${SOURCE}
export default defineConnector({ source: local, async update({ op }) { await op.checkpoint({ v: 1 }); } });
`,
    });
    const before = new Set(await cached());
    expect((await debug(dir)).code).toBe(0);
    const entry = (await cached()).find((name) => !before.has(name));
    expect(entry).toBeDefined();
    const compiled = await readFile(join(cache, 'typescript', entry!), 'utf8');
    const map = JSON.parse(
      Buffer.from(/sourceMappingURL=data:application\/json;base64,(\S+)/.exec(compiled)![1]!, 'base64').toString(
        'utf8',
      ),
    ) as { sources: string[] };
    expect(map.sources).toEqual([join(dir, 'connector.ts')]);
  });

  it('a helper in a folder keeps its own import.meta.url; a helper edited alone is compiled again', async () => {
    const helper = (n: number) => `export const where = new URL('.', import.meta.url).pathname;
export const n = ${n};
`;
    const dir = await project('nested', {
      'connector.ts': `import { defineConnector, defineSource, z } from 'connector-auth';
import { where, n } from './lib/where.js';
${SOURCE}
export default defineConnector({
  source: local,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1, here: new URL('.', import.meta.url).pathname, where, n });
    await op.checkpoint({ done: true });
  },
});
`,
    });
    await mkdir(join(dir, 'lib'));
    await writeFile(join(dir, 'lib', 'where.ts'), helper(1));
    const first = await debug(dir);
    expect(first.code, first.stderr).toBe(0);
    const url = (folder: string) => `${new URL(`file://${folder}/`).pathname}`;
    expect(await rows(dir, 'SELECT here, "where", n FROM tester.items')).toEqual([
      [url(dir), url(join(dir, 'lib')), 1n],
    ]);
    await writeFile(join(dir, 'lib', 'where.ts'), helper(2));
    const second = await debug(dir);
    expect(second.code, second.stderr).toBe(0);
    expect(await rows(dir, 'SELECT n FROM tester.items')).toEqual([[2n]]);
  });

  it('a project that require()s or imports dynamically is still loaded (file by file, through the hooks)', async () => {
    const dir = await project('dynamic', {
      'connector.ts': `import { defineConnector, defineSource, z } from 'connector-auth';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const seed = require('./seed.json') as { n: number };
${SOURCE}
export default defineConnector({
  source: local,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    const { label } = await import('./helper.js');
    await op.upsert('items', { id: 1, label: label(), n: seed.n });
    await op.checkpoint({ done: true });
  },
});
`,
      'helper.ts': `export function label(): string { return 'dynamic'; }
`,
      'seed.json': '{"n": 7}',
    });
    const run = await debug(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(await rows(dir, 'SELECT label, n FROM tester.items')).toEqual([['dynamic', 7n]]);
  });

  it('a connector with top-level await is loaded, its top-level code run once', async () => {
    // On Node 20 the bundle is loaded by require(), which refuses a module with top-level await
    // before running any of it; it is then imported. A second run of the top level would count 2.
    const dir = await project('top-level-await', {
      'connector.ts': `import { defineConnector, defineSource, z } from 'connector-auth';
const runs = ((globalThis as { topLevelRuns?: number }).topLevelRuns ?? 0) + 1;
(globalThis as { topLevelRuns?: number }).topLevelRuns = runs;
const seed = await Promise.resolve(41);
${SOURCE}
export default defineConnector({
  source: local,
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1, n: seed + 1, runs });
    await op.checkpoint({ done: true });
  },
});
`,
    });
    const run = await debug(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(await rows(dir, 'SELECT n, runs FROM tester.items')).toEqual([[42n, 1n]]);
  });

  it('two projects loaded by the same relative path (airbyte check from each directory) each load their own connector', async () => {
    const connector = (value: string) => `import { defineConnector, defineSource, z } from 'connector-auth';
${SOURCE.replace("target: 'nothing'", `target: 'project-${value}'`)}
export default defineConnector({ source: local, async update({ op }) { await op.checkpoint({ done: true }); } });
`;
    const first = await project('relative-one', { 'connector.ts': connector('one') });
    const second = await project('relative-two', { 'connector.ts': connector('two') });
    for (const [dir, value] of [
      [first, 'one'],
      [second, 'two'],
    ] as const) {
      const run = await cli(['airbyte', 'check', '--config', 'configuration.json'], {
        cwd: dir,
        env: { CONNECTOR_AUTH_CACHE_DIR: cache },
      });
      expect(run.stdout).toContain(`probe succeeded: project-${value}`);
    }
  });

  it('a syntax error is exit 1, naming the file and the line', async () => {
    const dir = await project('broken', {
      'connector.ts': `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  async update({ op }) { const x: number = ; },
});
`,
    });
    const run = await debug(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/connector_load_failed/);
    expect(run.stderr).toMatch(/connector\.ts:4:/);
    expect(await readdir(dir)).not.toContain('files');
  });

  it('--verbose: the stack of an error thrown in update() names the .ts line it was thrown at', async () => {
    const text = `import { defineConnector, defineSource, z } from 'connector-auth';
${SOURCE}
type Row = { id: number };
export default defineConnector({
  source: local,
  async update() {
    const row: Row = { id: 1 };
    throw new Error('boom ' + row.id);
  },
});
`;
    const line = text.split('\n').findIndex((l) => l.includes('throw new Error')) + 1;
    const dir = await project('throws', { 'connector.ts': text });
    const run = await debug(dir, ['--verbose']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('boom 1');
    expect(run.stderr).toContain(`connector.ts:${line}:`);
  });
});
