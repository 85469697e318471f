import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../../src/hosts/local/warehouse/index.js';

/**
 * A warehouse from an earlier run is opened while `debug` loads and probes (Warehouse.openExisting),
 * so opening and closing it without a write must leave the file as it was; the `tester` views are
 * made again at close only when they are missing or out of step with their tables, or after a
 * schema change. Checked on real DuckDB files.
 */

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warehouse-views-'));
  path = join(dir, 'warehouse.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const digest = async () =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** Runs statements on the file directly (no warehouse open). */
async function sql(...statements: string[]): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(path);
  try {
    const connection = await instance.connect();
    let rows: unknown[][] = [];
    for (const statement of statements) rows = (await connection.runAndReadAll(statement)).getRows();
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

async function firstRun(): Promise<void> {
  const warehouse = await Warehouse.open(path);
  await warehouse.declare([{ table: 'items', primary_key: ['id'] }]);
  await warehouse.upsert('items', { id: 1, name: 'one' });
  await warehouse.close();
}

describe('Warehouse.openExisting', () => {
  it('opens nothing where there is no file (open() creates it, after the probe)', async () => {
    expect(Warehouse.openExisting(path)).toBeUndefined();
  });

  it('opens nothing while a write-ahead log waits to be replayed into the file', async () => {
    await firstRun();
    await writeFile(`${path}.wal`, '');
    expect(Warehouse.openExisting(path)).toBeUndefined();
  });

  it('opened and closed without a write: the file is byte for byte as it was', async () => {
    await firstRun();
    const before = await digest();
    const warehouse = await Warehouse.openExisting(path)!;
    await warehouse.close();
    expect(await digest()).toBe(before);
  });
});

describe('the tester views at close', () => {
  it('a view dropped since (a run stopped before it closed) is made again, even by a session that writes nothing', async () => {
    await firstRun();
    await sql('DROP VIEW tester.items');
    await (await Warehouse.openExisting(path)!).close();
    expect(await sql('SELECT name FROM tester.items')).toEqual([['one']]);
  });

  it('a view older than its table (a column added since) is made again and shows the new column', async () => {
    await firstRun();
    await sql('ALTER TABLE default_schema.items ADD COLUMN extra VARCHAR');
    await (await Warehouse.openExisting(path)!).close();
    expect(await sql('SELECT id, extra FROM tester.items')).toEqual([[1n, null]]);
  });

  it('a session that adds a column remakes the views', async () => {
    await firstRun();
    const warehouse = await Warehouse.open(path);
    await warehouse.upsert('items', { id: 2, name: 'two', colour: 'red' });
    await warehouse.close();
    expect(await sql('SELECT id, colour FROM tester.items ORDER BY id')).toEqual([
      [1n, null],
      [2n, 'red'],
    ]);
  });
});

describe('a file from before the move to default_schema', () => {
  it('tables still in the tester schema: opening is refused, naming reset as the way out, and the file is left as it was', async () => {
    await sql(
      'CREATE SCHEMA tester',
      'CREATE TABLE tester.items (id INTEGER PRIMARY KEY)',
      'INSERT INTO tester.items VALUES (1)',
    );
    const before = await digest();
    await expect(Warehouse.open(path)).rejects.toThrow(
      /was written by an earlier connector-auth, whose tables are in schema tester; run connector-auth reset to start it over in default_schema/,
    );
    expect(await digest()).toBe(before);
    expect(await sql('SELECT id FROM tester.items')).toEqual([[1]]);
  });
});
