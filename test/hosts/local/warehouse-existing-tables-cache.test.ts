import { readdir, readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse, type Row } from '../../../src/hosts/local/warehouse/index.js';
import { keptExistingTables } from '../../../src/hosts/local/warehouse/engine/index.js';

/**
 * A warehouse file's existing tables, as read, kept between sessions (existing-tables-cache.ts): written only by a
 * session that changed none of it, used only for the file exactly as that session left it. Each
 * test writes the file through another DuckDB session too, as an author's own tools would.
 */

let dir: string;
let path: string;
const saved = process.env.CONNECTOR_AUTH_CACHE_DIR;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'existing-tables-cache-'));
  path = join(dir, 'warehouse.db');
  process.env.CONNECTOR_AUTH_CACHE_DIR = join(dir, 'cache');
});

afterEach(async () => {
  if (saved === undefined) delete process.env.CONNECTOR_AUTH_CACHE_DIR;
  else process.env.CONNECTOR_AUTH_CACHE_DIR = saved;
  await rm(dir, { recursive: true, force: true });
});

function data(rows: Row[]): Row[] {
  return rows.map(({ _fivetran_synced, _fivetran_deleted, ...rest }) => rest);
}

/** One session: opened, `body` run on it, closed. */
async function session(body: (w: Warehouse) => Promise<void>): Promise<void> {
  const w = await Warehouse.open(path);
  try {
    await body(w);
  } finally {
    await w.close();
  }
}

/** SQL through DuckDB itself, as another program would write the file. */
async function elsewhere(sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run(sql);
  conn.closeSync();
  instance.closeSync();
}

/** A session that makes the table, then one that only writes rows: the tables read are kept. */
async function twoSessions(): Promise<void> {
  await session(async (w) => {
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    await w.upsert('items', { id: 1 });
  });
  await session(async (w) => w.upsert('items', { id: 1 }));
}

async function entryFile(): Promise<string> {
  const directory = join(dir, 'cache', 'warehouse');
  const [name] = await readdir(directory);
  return join(directory, name!);
}

it('a session that changes no table keeps the tables it read, and the next one works from them', async () => {
  await session(async (w) => {
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    await w.upsert('items', { id: 1, name: 'a' });
  });
  // The first session made the table: nothing was kept.
  expect(keptExistingTables(path)).toBeUndefined();
  await session(async (w) => {
    await w.upsert('items', { id: 2, name: 'b' });
  });
  expect(keptExistingTables(path)?.overview).toContainEqual(['table', 'default_schema', 'items', 4, null]);
  await session(async (w) => {
    await w.upsert('items', { id: 1, name: 'a2' });
    expect(data(await w.read('items'))).toEqual([
      { id: 1, name: 'a2' },
      { id: 2, name: 'b' },
    ]);
    expect(w.schemaChanges).toBe(0);
  });
});

it('another program writing the file makes the kept tables stale: the file is read again', async () => {
  await twoSessions();
  expect(keptExistingTables(path)).toBeDefined();
  await elsewhere('ALTER TABLE default_schema.items ADD COLUMN note VARCHAR');
  expect(keptExistingTables(path)).toBeUndefined();
  await session(async (w) => {
    await w.upsert('items', { id: 2, note: 'seen' });
    // The column was found in the file: adding it again would count a schema change.
    expect(w.schemaChanges).toBe(0);
    expect(data(await w.read('items'))).toEqual([
      { id: 1, note: null },
      { id: 2, note: 'seen' },
    ]);
  });
});

it('a write-ahead log left by another program is replayed and the file read, though the file itself is unchanged', async () => {
  await twoSessions();
  // DuckDB writes this change to warehouse.db.wal only: the main file keeps its size and time.
  await elsewhere('PRAGMA disable_checkpoint_on_shutdown; ALTER TABLE default_schema.items ADD COLUMN note VARCHAR');
  expect(existsSync(`${path}.wal`)).toBe(true);
  expect(keptExistingTables(path)).toBeDefined();
  await session(async (w) => {
    await w.upsert('items', { id: 2, note: 'seen' });
    expect(w.schemaChanges).toBe(0);
  });
});

it('what is kept is what a session believes the file holds, while the file is as it was left', async () => {
  await twoSessions();
  // Rows naming a table the file does not hold, under the file's own identity: they are believed.
  const file = await entryFile();
  const entry = JSON.parse(await readFile(file, 'utf8')) as { rows: { overview: unknown[]; described: unknown[] } };
  entry.rows.overview.push(
    ['table', 'default_schema', 'ghost', 3, null],
    ['key', 'default_schema', 'ghost', null, ['id']],
  );
  entry.rows.described = [
    [0, 'id', 'BIGINT'],
    [0, '_fivetran_synced', 'TIMESTAMP WITH TIME ZONE'],
    [0, '_fivetran_deleted', 'BOOLEAN'],
    ...entry.rows.described.map((row) => [1, ...(row as unknown[]).slice(1)]),
  ];
  await writeFile(file, JSON.stringify(entry));
  await expect(session((w) => w.read('ghost').then(() => undefined))).rejects.toThrow(/ghost/);
});

it('a damaged entry is read from the file instead, and replaced', async () => {
  await twoSessions();
  const file = await entryFile();
  await writeFile(file, '{"format":1,"file":');
  expect(keptExistingTables(path)).toBeUndefined();
  await session(async (w) => {
    expect(data(await w.read('items'))).toEqual([{ id: 1 }]);
  });
  expect(keptExistingTables(path)?.overview).toContainEqual(['table', 'default_schema', 'items', 3, null]);
});
