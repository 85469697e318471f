import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readExistingTables } from '../../../src/hosts/local/warehouse/engine/index.js';

/**
 * readExistingTables() lists a file's tables by DESCRIBE, not by `duckdb_columns()` (which binds all of
 * DuckDB's own views: existing-tables.ts). Checked against `duckdb_columns()` and `duckdb_constraints()`
 * as the oracle, on tables a connector could name: quotes, spaces, case, a key whose columns are
 * not in table order, every type family the warehouse writes, and a file with many tables.
 */

let dir: string;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warehouse-existing-tables-'));
  instance = await DuckDBInstance.create(join(dir, 'warehouse.db'));
  conn = await instance.connect();
  await conn.run('CREATE SCHEMA default_schema; CREATE SCHEMA tester');
});
afterEach(async () => {
  conn.closeSync();
  instance.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** Every table's columns and key as DuckDB's own catalogue functions give them. */
async function oracle(): Promise<Record<string, { columns: [string, string][]; keys: string[] }>> {
  const columns = (
    await conn.runAndReadAll(`SELECT table_name, column_name, data_type FROM duckdb_columns()
      WHERE schema_name = 'default_schema' ORDER BY table_name, column_index`)
  ).getRowsJS() as [string, string, string][];
  const keys = (
    await conn.runAndReadAll(`SELECT table_name, constraint_column_names FROM duckdb_constraints()
      WHERE schema_name = 'default_schema' AND constraint_type = 'PRIMARY KEY'`)
  ).getRowsJS() as [string, string[]][];
  const tables: Record<string, { columns: [string, string][]; keys: string[] }> = {};
  for (const [table, column, type] of columns)
    (tables[table] ??= { columns: [], keys: [] }).columns.push([column, type]);
  for (const [table, names] of keys) tables[table]!.keys = names;
  return tables;
}

async function read(): Promise<Record<string, { columns: [string, string][]; keys: string[] }>> {
  const existing = await readExistingTables(conn);
  const tables: Record<string, { columns: [string, string][]; keys: string[] }> = {};
  for (const state of existing.tables.values())
    tables[state.name] = {
      columns: [...state.columns.values()].map((column) => [column.name, String(column.type)]),
      keys: state.keys,
    };
  return tables;
}

it('reads odd names, column order, every type family and a key out of column order', async () => {
  await conn.run(`CREATE TABLE default_schema."Odd ""quoted"" name" (
      "b col" VARCHAR, a BIGINT, "Mixed Case" DECIMAL(18,3), t TIMESTAMPTZ, n TIMESTAMP, d DATE, j JSON,
      bin BLOB, f DOUBLE, small SMALLINT, flag BOOLEAN, _fivetran_synced TIMESTAMPTZ, _fivetran_deleted BOOLEAN,
      PRIMARY KEY (a, "b col"))`);
  await conn.run(`CREATE TABLE default_schema.plain (_fivetran_id VARCHAR PRIMARY KEY, x INTEGER)`);
  const expected = await oracle();
  const found = await read();
  expect(Object.keys(found).sort()).toEqual(Object.keys(expected).sort());
  const odd = found['Odd "quoted" name']!;
  expect(odd.keys).toEqual(['a', 'b col']);
  // The key first (as a table state holds it), then the rest in the table's order, without the
  // warehouse's own columns.
  const own = new Set(['_fivetran_synced', '_fivetran_deleted', 'a', 'b col']);
  expect(odd.columns.map(([name]) => name)).toEqual([
    'a',
    'b col',
    ...expected['Odd "quoted" name']!.columns.map(([name]) => name).filter((name) => !own.has(name)),
  ]);
  expect(odd.columns.find(([name]) => name === 'Mixed Case')?.[1]).toBe('DECIMAL(18,3)');
  expect(found.plain!.keys).toEqual(['_fivetran_id']); // a keyless table: keyed by _fivetran_id
});

it('reads a file of many tables, each with its own columns', async () => {
  for (let i = 0; i < 40; i++)
    await conn.run(
      `CREATE TABLE default_schema.t${i} (id BIGINT PRIMARY KEY, ${Array.from({ length: (i % 5) + 1 }, (_, c) => `c${c} VARCHAR`).join(', ')})`,
    );
  const expected = await oracle();
  const found = await read();
  expect(Object.keys(found)).toHaveLength(40);
  for (const [table, { columns, keys }] of Object.entries(expected)) {
    expect(found[table]!.keys, table).toEqual(keys);
    expect(
      found[table]!.columns.map(([name]) => name),
      table,
    ).toEqual(columns.map(([name]) => name));
  }
});

it('reads an empty file as no tables', async () => {
  const existing = await readExistingTables(conn);
  expect(existing.tables.size).toBe(0);
  expect(existing.legacyTables).toBe(0);
  expect(existing.viewsStale).toBe(false);
});

it("gives each table's columns in the file's order, the warehouse's own and later-added ones included", async () => {
  await conn.run(`CREATE TABLE default_schema."Odd" (b VARCHAR, a BIGINT PRIMARY KEY, _fivetran_synced TIMESTAMPTZ,
      _fivetran_deleted BOOLEAN); ALTER TABLE default_schema."Odd" ADD COLUMN "later one" DOUBLE`);
  const expected = await oracle();
  const existing = await readExistingTables(conn);
  const state = existing.tables.get('odd')!;
  expect(existing.columnOrder.get(state)).toEqual(expected.Odd!.columns.map(([name]) => name));
  expect(existing.columnOrder.get(state)).toEqual(['b', 'a', '_fivetran_synced', '_fivetran_deleted', 'later one']);
});

it('says which of the two schemas the file holds, and runs setup statements in the same round trip', async () => {
  expect([...(await readExistingTables(conn)).schemas].sort()).toEqual(['default_schema', 'tester']);
  await conn.run('DROP SCHEMA tester');
  const existing = await readExistingTables(conn, `SET TimeZone = 'America/New_York'; `);
  expect([...existing.schemas]).toEqual(['default_schema']);
  expect((await conn.runAndReadAll(`SELECT current_setting('TimeZone')`)).getRowsJS()).toEqual([['America/New_York']]);
});
