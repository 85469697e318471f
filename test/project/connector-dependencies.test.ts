import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, leakForms, startCli } from '../helpers/cli.js';
import { until } from '../helpers/source-session.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';
import { airbyte, configuredCatalog, jsonFile } from '../hosts/airbyte/support.js';
import { connectorClient, plain, startServe } from '../hosts/fivetran/support.js';

/**
 * A connector as authors write one: it imports packages installed from the npm registry into the
 * project's own node_modules — ESM-only (nanoid 5, @noble/hashes 2: scoped, subpath exports),
 * CommonJS-only (lodash), dual (date-fns 4, with a subpath), a native addon (DuckDB's bindings),
 * JSON (its own file and a package's) and its own .ts and .js files — and each value they compute
 * is checked where the run put it: the warehouse (`debug`), Airbyte's RECORDs and the partner SDK's
 * Update. On Node 20 the project is bundled (packages left as imports of their own files), on
 * Node 22.15+ and 24 it loads through in-thread hooks; CI runs this file on both.
 */

const run = promisify(execFile);
const TOKEN = 'Dependencies-T0ken-5b1c';
const PACKAGES = {
  'date-fns': '4.4.0',
  lodash: '4.18.1',
  nanoid: '5.1.12',
  '@noble/hashes': '2.4.0',
  '@duckdb/node-api': '1.5.6-r.1',
};

const CONNECTOR = `import { defineConnector, z } from 'connector-auth';
import { formatISO } from 'date-fns';
import { addDays } from 'date-fns/addDays';
import _ from 'lodash';
import { customAlphabet } from 'nanoid';
import nanoidManifest from 'nanoid/package.json' with { type: 'json' };
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { DuckDBInstance } from '@duckdb/node-api';
import seed from './seed.json' with { type: 'json' };
import { shout } from './helpers/shout.js';
import { twice } from './legacy.js';

async function answer(): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const [[value]] = (await connection.runAndReadAll('SELECT 6 * 7')).getRowsJS() as [[number]];
  connection.closeSync();
  instance.closeSync();
  return Number(value);
}

export default defineConnector({
  source: 'rest',
  configuration: z.object({}),
  schema: () => [{ table: 'facts', primary_key: ['id'] }],
  async update({ source, op }) {
    const body = await source.json<{ items: { id: number; name: string }[] }>('items');
    const first = body.items[0]!;
    await op.upsert('facts', {
      id: first.id,
      iso: formatISO(addDays(new Date(Date.UTC(2024, 0, 1)), 1), { representation: 'date' }),
      kebab: _.kebabCase(first.name),
      code: customAlphabet('z', 4)(),
      nanoid_major: Number(nanoidManifest.version.split('.')[0]),
      digest: bytesToHex(sha256(new TextEncoder().encode('abc'))),
      duckdb: await answer(),
      seed: shout(seed.word) + twice(seed.count),
    });
    await op.checkpoint({ done: true });
  },
});
`;

const EXPECTED = {
  id: 1,
  iso: '2024-01-02',
  kebab: 'item-1',
  code: 'zzzz',
  nanoid_major: 5,
  digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  duckdb: 42,
  seed: 'DEPS!6',
};

let root: string;
let peer: HttpApiPeer;
let project: string;
let configPath: string;

async function writeProject(dir: string, files: Record<string, string>, dependencies: Record<string, string>) {
  await mkdir(join(dir, 'helpers'), { recursive: true });
  const manifest = { name: 'deps-connector', private: true, type: 'module', dependencies };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  await writeFile(
    join(dir, 'configuration.json'),
    JSON.stringify({ auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health' }),
    { mode: 0o600 },
  );
}

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 3 }),
    mkdtemp(join(tmpdir(), 'connector-auth-deps-')),
  ]);
  project = join(root, 'connector');
  await writeProject(
    project,
    {
      'connector.ts': CONNECTOR,
      'seed.json': JSON.stringify({ word: 'deps', count: 3 }),
      'helpers/shout.ts': `export const shout = (word: string): string => word.toUpperCase() + '!';\n`,
      'legacy.js': `export function twice(n) { return n * 2; }\n`,
    },
    PACKAGES,
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project });
  configPath = join(project, 'configuration.json');
}, 300_000);

afterAll(async () => {
  await peer?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

async function warehouseRow(dir: string): Promise<Record<string, unknown>> {
  const instance = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  try {
    const connection = await instance.connect();
    const rows = (
      await connection.runAndReadAll(
        'SELECT id, iso, kebab, code, nanoid_major, digest, duckdb, seed FROM tester.facts',
      )
    ).getRowObjectsJS();
    connection.closeSync();
    expect(rows).toHaveLength(1);
    return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
  } finally {
    instance.closeSync();
  }
}

describe('a connector that imports npm packages from its own node_modules', () => {
  it('validate and probe load it', async () => {
    const validate = await cli(['validate', project]);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    const probe = await cli(['probe', project]);
    expect(probe.code, probe.stderr).toBe(0);
  });

  it('debug runs update() with every package, and the warehouse holds what they computed', async () => {
    const debug = await cli(['debug', project]);
    expect(debug.code, debug.stderr).toBe(0);
    expect(await warehouseRow(project)).toEqual(EXPECTED);
    for (const form of leakForms(TOKEN)) expect(debug.stdout + debug.stderr).not.toContain(form);
  });

  it('airbyte read sends the same values as RECORDs', async () => {
    const catalog = await jsonFile(root, 'catalog.json', configuredCatalog([{ name: 'facts' }]));
    const read = await airbyte(['read', project, '--config', configPath, '--catalog', catalog]);
    expect(read.code, read.stderr).toBe(0);
    const records = read
      .of('RECORD')
      .map((m) => (m as unknown as { record: { data: Record<string, unknown> } }).record.data);
    expect(records).toEqual([EXPECTED]);
  });

  it('serve answers an Update with the same values', async () => {
    const server = await startServe(project);
    try {
      const client = connectorClient(server.port);
      const configuration = { auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health' };
      const update = await client.update({ configuration, state_json: '{}' });
      expect(update.error).toBeUndefined();
      const row = update.records.find((r) => r.table_name === 'facts')!;
      const values = Object.fromEntries(
        Object.entries(plain(row)).map(([key, typed]) => {
          const value = Object.values(typed as object)[0] as unknown;
          return [key, typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value];
        }),
      );
      expect(values).toMatchObject(EXPECTED);
      client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('a package that is not installed', () => {
  let broken: string;
  beforeAll(async () => {
    broken = join(root, 'broken');
    await writeProject(
      broken,
      {
        'connector.ts': `import { defineConnector } from 'connector-auth';
import { camelCase } from 'change-case-not-installed';
export default defineConnector({ source: 'rest', async update({ op }) { await op.checkpoint({ key: camelCase('a b') }); } });
`,
      },
      {},
    );
  });

  it.each([['validate'], ['probe'], ['debug']])(
    '%s: exit 2 naming the import and `npm install`, nothing written',
    async (command) => {
      const result = await cli([command, broken]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /error \[dependency_missing\]: .*connector\.ts imports 'change-case-not-installed', which is not installed/,
      );
      expect(result.stderr).toContain('npm install change-case-not-installed');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(await exists(join(broken, 'files'))).toBe(false);
    },
  );

  it('airbyte check reports it as a configuration error naming the import', async () => {
    const check = await airbyte(['check', broken, '--config', join(broken, 'configuration.json')]);
    const text = JSON.stringify(check.messages);
    expect(text).toContain('change-case-not-installed');
    expect(text).toMatch(/npm install/);
  });

  it('a path the package does not export is named too', async () => {
    const dir = join(root, 'subpath');
    await writeProject(
      dir,
      {
        'connector.ts': `import { defineConnector } from 'connector-auth';
import { nope } from 'lodash/does-not-exist-anywhere';
export default defineConnector({ source: 'rest', async update({ op }) { await op.checkpoint({ nope }); } });
`,
      },
      {},
    );
    await mkdir(join(dir, 'node_modules'), { recursive: true });
    await run('cp', ['-r', join(project, 'node_modules', 'lodash'), join(dir, 'node_modules', 'lodash')]);
    const validate = await cli(['validate', dir]);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toMatch(/dependency_missing.*lodash/);
  });
});

describe('a connector whose loading never finishes', () => {
  let stuck: string;
  beforeAll(async () => {
    stuck = join(root, 'stuck');
    await writeProject(
      stuck,
      {
        'connector.ts': `import { defineConnector } from 'connector-auth';
console.error('connector top level: waiting forever');
await new Promise(() => setInterval(() => {}, 1000));
export default defineConnector({ source: 'rest', async update() {} });
`,
      },
      {},
    );
  });

  it('debug: SIGTERM while it loads ends the process with 143, nothing written', async () => {
    const running = startCli(['debug', stuck]);
    await until(() => running.output().stderr.includes('waiting forever'));
    running.child.kill('SIGTERM');
    const done = await running.done;
    expect(done.code).toBe(143);
    expect(done.stderr).toMatch(/interrupted by SIGTERM before the sync started: nothing was written/);
    expect(await exists(join(stuck, 'files', 'warehouse.db'))).toBe(false);
  });

  it('serve: SIGTERM while it starts ends the process with 143', async () => {
    const running = startCli(['serve', stuck, '--port', '0', '--host', '127.0.0.1']);
    await until(() => (running.output().stdout + running.output().stderr).includes('waiting forever'));
    running.child.kill('SIGTERM');
    expect((await running.done).code).toBe(143);
  });

  it('past the load deadline: exit 1 naming the file, and the process ends though its timer runs on', async () => {
    const result = await cli(['debug', stuck], { env: { CONNECTOR_AUTH_LOAD_TIMEOUT_SECONDS: '1' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /error \[connector_load_timeout\]: loading .*connector\.ts did not finish within 1 s/,
    );
  });
});
