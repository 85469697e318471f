import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse, type Row } from '../../../src/hosts/local/warehouse/index.js';

/**
 * The local warehouse, checked by reading back what DuckDB holds: every value
 * asserted here went through staging, the merge statements and the file.
 */

let dir: string;
let path: string;
const open: Warehouse[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warehouse-test-'));
  path = join(dir, 'warehouse.db');
});

afterEach(async () => {
  for (const warehouse of open.splice(0)) await warehouse.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

async function openWarehouse(batchSize?: number): Promise<Warehouse> {
  const warehouse = await Warehouse.open(path, batchSize === undefined ? {} : { batchSize });
  open.push(warehouse);
  return warehouse;
}

async function closeAll(): Promise<void> {
  for (const warehouse of open.splice(0)) await warehouse.close();
}

/** Queries the file directly (every warehouse must be closed first). */
async function query(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(sql);
    const rows = reader.getRowObjectsJS() as Record<string, unknown>[];
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

async function columnTypes(table: string): Promise<Record<string, string>> {
  const rows = await query(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'default_schema' AND table_name = '${table.replaceAll("'", "''")}' ORDER BY ordinal_position`,
  );
  return Object.fromEntries(rows.map((row) => [row.column_name as string, row.data_type as string]));
}

/** Rows without the system columns, for compact comparisons. */
function data(rows: Row[]): Row[] {
  return rows.map((row) => {
    const { _fivetran_synced: _synced, _fivetran_deleted: _deleted, ...rest } = row;
    return rest;
  });
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

describe('upsert', () => {
  it('inserts and replaces whole rows by primary key, last write wins within one batch', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'] }]);
    await w.upsert('users', { id: 1, name: 'ada', email: 'ada@example.com' });
    await w.upsert('users', { id: 2, name: 'bob', email: 'bob@example.com' });
    await w.upsert('users', { id: 1, name: 'ada lovelace' }); // replaces: email becomes NULL
    await w.upsert('users', { id: 2, name: 'bobby', email: 'b@example.com' });
    await w.upsert('users', { id: 2, name: 'robert', email: 'r@example.com' });
    const rows = await w.read('users');
    expect(data(rows)).toEqual([
      { id: 1, name: 'ada lovelace', email: null },
      { id: 2, name: 'robert', email: 'r@example.com' },
    ]);
    expect(rows.every((row) => row._fivetran_deleted === false)).toBe(true);
  });

  it('a staged run: a column named like the staging table order column (__seq) is an ordinary column', async () => {
    const w = await openWarehouse();
    // A declared INT key takes the staged way (its cast is checked), where __seq orders the rows.
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT' } }]);
    // Sorted by their own value, the first would win: 'z' > 'a'.
    await w.upsert('t', { id: 1, __seq: 'z-first' });
    await w.upsert('t', { id: 2, __seq: 'other' });
    await w.upsert('t', { id: 1, __seq: 'a-last' });
    expect(data(await w.read('t'))).toEqual([
      { id: 1, __seq: 'a-last' },
      { id: 2, __seq: 'other' },
    ]);
  });

  it('last write wins across batches and with a composite key', async () => {
    const w = await openWarehouse(2);
    await w.declare([{ table: 'lines', primary_key: ['order', 'line'], columns: { order: 'INT', line: 'INT' } }]);
    for (let i = 0; i < 7; i++) await w.upsert('lines', { order: 1, line: i % 3, qty: i });
    await w.upsert('lines', { order: 2, line: 0, qty: 100 });
    expect(data(await w.read('lines'))).toEqual([
      { order: 1, line: 0, qty: 6 },
      { order: 1, line: 1, qty: 4 },
      { order: 1, line: 2, qty: 5 },
      { order: 2, line: 0, qty: 100 },
    ]);
  });

  it('writes _fivetran_synced as the time of the write', async () => {
    const w = await openWarehouse();
    const before = Date.now();
    await w.upsert('events', { kind: 'a' });
    await w.flush();
    const after = Date.now();
    const [row] = await w.read('events');
    const synced = (row?._fivetran_synced as Date).getTime();
    expect(synced).toBeGreaterThanOrEqual(before - 1000);
    expect(synced).toBeLessThanOrEqual(after + 1000);
  });
});

describe('update', () => {
  it('merges the given columns into the existing row and inserts a missing one', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'] }]);
    await w.upsert('users', { id: 1, name: 'ada', email: 'ada@example.com', age: 36 });
    await w.flush();
    await w.update('users', { id: 1, email: 'ada@lovelace.org' });
    await w.update('users', { id: 2, name: 'new' });
    expect(data(await w.read('users'))).toEqual([
      { id: 1, name: 'ada', email: 'ada@lovelace.org', age: 36 },
      { id: 2, name: 'new', email: null, age: null },
    ]);
  });

  it('applies several updates of one key in one batch in order, null included', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'] }]);
    await w.upsert('users', { id: 1, name: 'ada', email: 'ada@example.com', age: 36 });
    await w.update('users', { id: 1, name: 'first' });
    await w.update('users', { id: 1, age: 37 });
    await w.update('users', { id: 1, name: 'second', email: null });
    await w.update('users', { id: 1, age: undefined }); // undefined: not given
    expect(data(await w.read('users'))).toEqual([{ id: 1, name: 'second', email: null, age: 37 }]);
  });

  it('revives a soft-deleted row', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', { id: 1, v: 'x' });
    await w.delete('t', { id: 1 });
    await w.update('t', { id: 1, v: 'y' });
    const [row] = await w.read('t');
    expect(row).toMatchObject({ id: 1, v: 'y', _fivetran_deleted: false });
  });
});

describe('delete and truncate', () => {
  it('soft-deletes by key, keeps the data, ignores unknown keys, and an upsert revives', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'] }]);
    await w.upsert('users', { id: 1, name: 'ada' });
    await w.upsert('users', { id: 2, name: 'bob' });
    await w.flush();
    const [, before] = await w.read('users');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await w.delete('users', { id: 2, name: 'ignored: only the key counts' });
    await w.delete('users', { id: 99 });
    await w.delete('users', { id: 'not a number' });
    const rows = await w.read('users');
    expect(rows.map((row) => [row.id, row.name, row._fivetran_deleted])).toEqual([
      [1, 'ada', false],
      [2, 'bob', true],
    ]);
    expect((rows[1]?._fivetran_synced as Date).getTime()).toBeGreaterThan((before?._fivetran_synced as Date).getTime());
    await w.upsert('users', { id: 2, name: 'bob again' });
    expect((await w.read('users'))[1]).toMatchObject({ id: 2, name: 'bob again', _fivetran_deleted: false });
  });

  it('truncate marks every current row deleted; later writes are live', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    for (let i = 1; i <= 3; i++) await w.upsert('t', { id: i });
    await w.truncate('t');
    await w.upsert('t', { id: 2 });
    await w.upsert('t', { id: 4 });
    expect((await w.read('t')).map((row) => [row.id, row._fivetran_deleted])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, false],
    ]);
    await w.truncate('never-written'); // no table: nothing to do
    await w.delete('never-written', { a: 1 });
    expect(await w.read('never-written')).toEqual([]);
  });
});

describe('tables without a primary key', () => {
  it('are keyed by _fivetran_id, the sha1 of the canonical JSON of the data', async () => {
    const w = await openWarehouse();
    await w.upsert('logs', {
      msg: 'hello',
      n: 1,
      at: new Date('2024-01-02T03:04:05.678Z'),
      meta: { b: 2, a: [1, 'x'] },
    });
    await w.upsert('logs', {
      meta: { a: [1, 'x'], b: 2 },
      at: new Date('2024-01-02T03:04:05.678Z'),
      n: 1,
      msg: 'hello',
    }); // same row
    await w.upsert('logs', { msg: 'hello', n: 2, extra: null });
    const rows = await w.read('logs');
    const first = sha1('{"at":"2024-01-02T03:04:05.678Z","meta":{"a":[1,"x"],"b":2},"msg":"hello","n":1}');
    const second = sha1('{"msg":"hello","n":2}');
    expect(rows.map((row) => row._fivetran_id).sort()).toEqual([first, second].sort());
    expect(rows.find((row) => row._fivetran_id === first)).toMatchObject({
      msg: 'hello',
      n: 1,
      meta: { a: [1, 'x'], b: 2 },
    });

    await w.delete('logs', { n: 2, msg: 'hello' }); // the whole row identifies it
    await w.update('logs', { _fivetran_id: first, msg: 'changed' });
    const after = await w.read('logs');
    expect(after.find((row) => row._fivetran_id === second)?._fivetran_deleted).toBe(true);
    expect(after.find((row) => row._fivetran_id === first)).toMatchObject({
      msg: 'changed',
      n: 1,
      _fivetran_deleted: false,
    });
  });

  it('declared without primary_key also get _fivetran_id', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'keyless', columns: { v: 'INT' } }]);
    await w.upsert('keyless', { v: 5 });
    await w.upsert('keyless', { v: 5 });
    const rows = await w.read('keyless');
    expect(rows).toHaveLength(1);
    expect(rows[0]?._fivetran_id).toBe(sha1('{"v":5}'));
  });
});

describe('schema', () => {
  it('system columns have their types', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'keyed', primary_key: ['id'], columns: { id: 'LONG' } }]);
    await w.upsert('keyed', { id: 1 });
    await w.upsert('loose', { a: 'x' });
    await closeAll();
    expect(await columnTypes('keyed')).toEqual({
      id: 'BIGINT',
      _fivetran_synced: 'TIMESTAMP WITH TIME ZONE',
      _fivetran_deleted: 'BOOLEAN',
    });
    expect(await columnTypes('loose')).toEqual({
      _fivetran_id: 'VARCHAR',
      a: 'VARCHAR',
      _fivetran_synced: 'TIMESTAMP WITH TIME ZONE',
      _fivetran_deleted: 'BOOLEAN',
    });
    const keys = await query(
      `SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE schema_name = 'default_schema' AND constraint_type = 'PRIMARY KEY' ORDER BY table_name`,
    );
    expect(keys.map((row) => [row.table_name, row.constraint_column_names])).toEqual([
      ['keyed', ['id']],
      ['loose', ['_fivetran_id']],
    ]);
  });

  it('infers undeclared columns from the first non-null value', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', {
      id: 1,
      b: true,
      i: 42,
      d: 1.5,
      big: 2n ** 62n,
      huge: 2n ** 100n,
      s: 'text',
      ts: new Date('2024-05-06T07:08:09.010Z'),
      bin: Buffer.from([0, 1, 255]),
      obj: { k: [1, 2] },
      arr: [true, null],
      late: null,
    });
    await w.upsert('t', { id: 2, late: 7 });
    const rows = await w.read('t');
    await closeAll();
    expect(await columnTypes('t')).toMatchObject({
      id: 'BIGINT',
      b: 'BOOLEAN',
      i: 'BIGINT',
      d: 'DOUBLE',
      big: 'BIGINT',
      huge: 'HUGEINT',
      s: 'VARCHAR',
      ts: 'TIMESTAMP WITH TIME ZONE',
      bin: 'BLOB',
      obj: 'JSON',
      arr: 'JSON',
      late: 'BIGINT',
    });
    expect(rows[0]).toMatchObject({
      id: 1,
      b: true,
      i: 42,
      d: 1.5,
      big: 2n ** 62n,
      huge: 2n ** 100n,
      s: 'text',
      late: null,
    });
    expect((rows[0]?.ts as Date).toISOString()).toBe('2024-05-06T07:08:09.010Z');
    expect([...(rows[0]?.bin as Uint8Array)]).toEqual([0, 1, 255]);
    expect(rows[0]?.obj).toEqual({ k: [1, 2] });
    expect(rows[0]?.arr).toEqual([true, null]);
    expect(rows[1]).toMatchObject({ id: 2, late: 7, s: null });
  });

  it('adds new columns and counts schema changes: creation, each new column, each widening', async () => {
    const w = await openWarehouse();
    expect(w.schemaChanges).toBe(0);
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'LONG' } }]);
    expect(w.schemaChanges).toBe(1); // created
    await w.upsert('t', { id: 1, a: 'x' });
    await w.flush();
    expect(w.schemaChanges).toBe(2); // a
    await w.upsert('t', { id: 2, a: 'y', b: 1 });
    await w.upsert('t', { id: 3, c: false });
    await w.flush();
    expect(w.schemaChanges).toBe(4); // b, c
    await w.upsert('t', { id: 4, a: 'z', b: 2 });
    await w.flush();
    expect(w.schemaChanges).toBe(4); // nothing new

    await w.upsert('fresh', { x: 1, y: 'a' }); // created with the first row's columns: 1
    await w.upsert('fresh', { x: 2, z: 3 }); // z: 1
    await w.flush();
    expect(w.schemaChanges).toBe(6);
    expect(data(await w.read('t')).map((row) => [row.id, row.a, row.b, row.c])).toEqual([
      [1, 'x', null, null],
      [2, 'y', 1, null],
      [3, null, null, false],
      [4, 'z', 2, null],
    ]);
  });

  it('counts the same schema changes whatever the batch size', async () => {
    const counts: number[] = [];
    for (const batchSize of [1, 3, 1000]) {
      const w = await Warehouse.open(join(dir, `batch-${batchSize}.db`), { batchSize });
      open.push(w);
      await w.upsert('t', { a: 1 });
      await w.upsert('t', { a: 2, b: 'x' });
      await w.upsert('t', { a: 2.5 });
      await w.upsert('t', { c: true, a: 'text' });
      await w.flush();
      counts.push(w.schemaChanges);
    }
    // create(a) + b + a→DOUBLE + c + a→VARCHAR
    expect(counts).toEqual([5, 5, 5]);
  });

  it('widens inferred columns: BIGINT → DOUBLE → VARCHAR, keeping the values', async () => {
    const w = await openWarehouse(2);
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', { id: 1, v: 10 });
    await w.upsert('t', { id: 2, v: 20 });
    await w.upsert('t', { id: 3, v: 2.5 });
    await w.flush();
    const changesAfterDouble = w.schemaChanges;
    await w.upsert('t', { id: 4, v: 'four', flag: true });
    await w.upsert('t', { id: 5, flag: 'maybe' });
    const rows = await w.read('t');
    expect(w.schemaChanges).toBe(changesAfterDouble + 3); // v → VARCHAR, flag added, flag → VARCHAR
    expect(rows.map((row) => row.v)).toEqual(['10.0', '20.0', '2.5', 'four', null]);
    expect(rows.map((row) => row.flag)).toEqual([null, null, null, 'true', 'maybe']);
    await closeAll();
    expect(await columnTypes('t')).toMatchObject({ v: 'VARCHAR', flag: 'VARCHAR' });
  });

  it('widens an inferred key column by rebuilding the table', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['code'] }]);
    await w.upsert('t', { code: 1, v: 'a' });
    await w.flush();
    await w.upsert('t', { code: 'B', v: 'b' });
    await w.upsert('t', { code: 1, v: 'a2' });
    expect(data(await w.read('t'))).toEqual([
      { code: '1', v: 'a2' },
      { code: 'B', v: 'b' },
    ]);
  });

  it('honours declared types over inference', async () => {
    const w = await openWarehouse();
    await w.declare([
      {
        table: 'typed',
        primary_key: ['id'],
        columns: {
          id: 'INT',
          flag: 'BOOLEAN',
          small: 'SHORT',
          long: 'LONG',
          price: { type: 'DECIMAL', precision: 10, scale: 2 },
          ratio: 'FLOAT',
          score: 'DOUBLE',
          day: 'NAIVE_DATE',
          local: 'NAIVE_DATETIME',
          at: 'UTC_DATETIME',
          raw: 'BINARY',
          doc: 'XML',
          label: 'STRING',
          payload: 'JSON',
        },
      },
    ]);
    await w.upsert('typed', {
      id: 1,
      flag: 'true',
      small: 7,
      long: 9007199254740993n,
      price: 12.345,
      ratio: 0.5,
      score: 3,
      day: '2024-02-29',
      local: '2024-02-29T10:11:12',
      at: '2024-02-29T10:11:12+02:00',
      raw: 'bytes',
      doc: '<a/>',
      label: 123,
      payload: '{"k":1}',
    });
    await w.upsert('typed', {
      id: '2',
      price: '1.5',
      day: new Date('2024-03-01T00:00:00Z'),
      at: new Date(0),
      label: true,
      payload: 'plain',
    });
    const rows = await w.read('typed');
    expect(w.schemaChanges).toBe(1);
    await closeAll();
    expect(await columnTypes('typed')).toEqual({
      id: 'INTEGER',
      flag: 'BOOLEAN',
      small: 'SMALLINT',
      long: 'BIGINT',
      price: 'DECIMAL(10,2)',
      ratio: 'FLOAT',
      score: 'DOUBLE',
      day: 'DATE',
      local: 'TIMESTAMP',
      at: 'TIMESTAMP WITH TIME ZONE',
      raw: 'BLOB',
      doc: 'VARCHAR',
      label: 'VARCHAR',
      payload: 'JSON',
      _fivetran_synced: 'TIMESTAMP WITH TIME ZONE',
      _fivetran_deleted: 'BOOLEAN',
    });
    expect(rows[0]).toMatchObject({
      id: 1,
      flag: true,
      small: 7,
      long: 9007199254740993n,
      price: 12.35,
      ratio: 0.5,
      score: 3,
      doc: '<a/>',
      label: '123',
      payload: { k: 1 },
    });
    expect((rows[0]?.day as Date).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect((rows[0]?.local as Date).toISOString()).toBe('2024-02-29T10:11:12.000Z');
    expect((rows[0]?.at as Date).toISOString()).toBe('2024-02-29T08:11:12.000Z');
    expect(Buffer.from(rows[0]?.raw as Uint8Array).toString()).toBe('bytes');
    expect(rows[1]).toMatchObject({ id: 2, price: 1.5, label: 'true', payload: 'plain' });
    expect((rows[1]?.day as Date).toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect((rows[1]?.at as Date).getTime()).toBe(0);
  });

  it('reports a value that does not fit a declared type by table and column, never by value', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'accounts', primary_key: ['id'], columns: { id: 'INT', pin: 'SHORT', balance: 'INT' } }]);
    await w.upsert('accounts', { id: 1, pin: 'hunter2-secret' });
    const error = await w.flush().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('"accounts"');
    expect((error as Error).message).toContain('"pin"');
    expect((error as Error).message).not.toContain('hunter2');
    // The warehouse refuses further work rather than lose the order of writes.
    await expect(w.upsert('accounts', { id: 2 })).rejects.toThrow(/pin/);
    await expect(w.close()).rejects.toThrow(/pin/);
    const again = await openWarehouse();
    expect(await again.read('accounts')).toEqual([]);
  });

  it('a batch that fails while written in the background reaches the caller, and close()', async () => {
    const w = await openWarehouse(2);
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'INT' } }]);
    await w.upsert('t', { id: 1, n: 'not a number' });
    await w.upsert('t', { id: 2, n: 2 }); // fills the batch: written while the caller goes on
    await w.upsert('t', { id: 3, n: 3 }).catch(() => {});
    const error = (await w.upsert('t', { id: 4, n: 4 }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/table "t", column "n"/);
    await expect(w.close()).rejects.toThrow(/table "t", column "n"/);
  });

  it('rejects fractions and out-of-range numbers for declared integer columns', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'a', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT' } }]);
    await w.upsert('a', { id: 1, n: 1.5 });
    await expect(w.flush()).rejects.toThrow(/table "a", column "n": a non-integer number/);
    await expect(w.close()).rejects.toThrow(/non-integer/);
    const v = await openWarehouse();
    await v.declare([{ table: 'b', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT' } }]);
    await v.upsert('b', { id: 1, n: 40000 });
    const error = (await v.flush().catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/table "b", column "n": 1 value\(s\) cannot be stored as SMALLINT/);
    expect(error.message).not.toContain('40000');
  });

  it('refuses a missing or null primary key, naming the column', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'] }]);
    await expect(w.upsert('users', { name: 'secret-name' })).rejects.toThrow(
      'table "users", column "id": the primary key value is missing or null',
    );
    await expect(w.update('users', { id: null })).rejects.toThrow(/"id"/);
    await expect(w.upsert('users', { id: 1, _fivetran_deleted: true })).rejects.toThrow(/reserved/);
    await expect(w.upsert('users', { id: 1, Name: 'a', name: 'b' })).rejects.toThrow(/case-insensitive/);
    // None of these left anything behind.
    await w.upsert('users', { id: 1, name: 'ok' });
    expect(data(await w.read('users'))).toEqual([{ id: 1, name: 'ok' }]);
  });
});

describe('identifiers', () => {
  it('quotes table and column names, doubling quotes', async () => {
    const w = await openWarehouse();
    const table = 'we"ird table; DROP TABLE x --';
    await w.declare([{ table, primary_key: ['the "key"'], columns: { 'the "key"': 'STRING', select: 'INT' } }]);
    await w.upsert(table, { 'the "key"': 'k1', select: 1, 'a column with spaces': 'v', ünïcode: 'é' });
    await w.update(table, { 'the "key"': 'k1', select: 2 });
    await w.delete(table, { 'the "key"': 'k2' });
    expect(data(await w.read(table))).toEqual([
      { 'the "key"': 'k1', select: 2, 'a column with spaces': 'v', ünïcode: 'é' },
    ]);
    await closeAll();
    expect(Object.keys(await columnTypes(table))).toEqual([
      'the "key"',
      'select',
      '_fivetran_synced',
      '_fivetran_deleted',
      'a column with spaces',
      'ünïcode',
    ]);
  });

  it('rejects empty names and names with NUL', async () => {
    const w = await openWarehouse();
    await expect(w.upsert('', { a: 1 })).rejects.toThrow(/invalid table name/);
    await expect(w.upsert('t\0x', { a: 1 })).rejects.toThrow(/invalid table name/);
    await expect(w.upsert('t', { '': 1 })).rejects.toThrow(/table "t": invalid column name/);
    await expect(w.upsert('t', { 'a\0b': 1 })).rejects.toThrow(/invalid column name/);
    await expect(w.declare([{ table: 't2', columns: { '': 'INT' } }])).rejects.toThrow(/invalid column name/);
    await expect(w.declare([{ table: 't3', columns: { a: 'NUMBER' as never } }])).rejects.toThrow(
      /table "t3", column "a": unknown column type/,
    );
  });

  it('treats names that differ only in case as the same (as DuckDB does)', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'Users', primary_key: ['Id'] }]);
    await w.upsert('users', { id: 1, Name: 'a' });
    await w.upsert('USERS', { ID: 1, NAME: 'b' });
    expect(data(await w.read('Users'))).toEqual([{ Id: 1, Name: 'b' }]);
  });
});

describe('durability and order', () => {
  it('reopening the file keeps data, keys and types', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'users', primary_key: ['id'], columns: { id: 'LONG' } }]);
    await w.upsert('users', { id: 1, name: 'ada', n: 1 });
    await w.upsert('logs', { msg: 'x' });
    await w.close();
    open.splice(0);

    const again = await openWarehouse();
    expect(data(await again.read('users'))).toEqual([{ id: 1, name: 'ada', n: 1 }]);
    await again.declare([{ table: 'users', primary_key: ['id'], columns: { id: 'LONG' } }]);
    expect(again.schemaChanges).toBe(0);
    await again.upsert('users', { id: 1, name: 'ada2', n: 2 }); // replaces: the key is known from the file
    await again.upsert('logs', { msg: 'x' }); // same _fivetran_id
    expect(data(await again.read('users'))).toEqual([{ id: 1, name: 'ada2', n: 2 }]);
    expect(await again.read('logs')).toHaveLength(1);
    expect(again.schemaChanges).toBe(0);
    await expect(again.declare([{ table: 'users', primary_key: ['name'] }])).rejects.toThrow(/another primary key/);
  });

  it('close() flushes what is buffered', async () => {
    const w = await openWarehouse(1000);
    for (let i = 0; i < 10; i++) void w.upsert('t', { i });
    await closeAll();
    expect((await query('SELECT count(*) AS n FROM tester.t'))[0]?.n).toBe(10n);
  });

  it('applies mixed operations on one table in the order they were issued', async () => {
    for (const batchSize of [1, 4, 1000]) {
      const w = await Warehouse.open(join(dir, `mixed-${batchSize}.db`), { batchSize });
      open.push(w);
      await w.declare([{ table: 't', primary_key: ['id'] }]);
      const ops: Promise<void>[] = [
        w.upsert('t', { id: 1, v: 'a', w: 1 }),
        w.upsert('t', { id: 2, v: 'b', w: 2 }),
        w.update('t', { id: 1, v: 'a2' }),
        w.delete('t', { id: 2 }),
        w.upsert('t', { id: 3, v: 'c' }),
        w.truncate('t'),
        w.upsert('t', { id: 1, v: 'a3' }),
        w.update('t', { id: 1, w: 10 }),
        w.delete('t', { id: 3 }),
        w.upsert('t', { id: 3, v: 'c2' }),
        w.update('t', { id: 2, w: 20 }),
      ];
      await Promise.all(ops);
      const rows = await w.read('t');
      expect(data(rows), `batchSize ${batchSize}`).toEqual([
        { id: 1, v: 'a3', w: 10 },
        { id: 2, v: 'b', w: 20 },
        { id: 3, v: 'c2', w: null },
      ]);
      expect(rows.map((row) => row._fivetran_deleted)).toEqual([false, false, false]);
    }
  });

  it('keeps buffered rows apart from later changes to the caller’s objects', async () => {
    const w = await openWarehouse();
    const row: Row = { id: 1, tags: ['a'], bytes: new Uint8Array([1]) };
    await w.upsert('t', row);
    (row.tags as string[]).push('b');
    (row.bytes as Uint8Array)[0] = 9;
    row.id = 2;
    const [stored] = await w.read('t');
    expect(stored).toMatchObject({ id: 1, tags: ['a'] });
    expect([...(stored?.bytes as Uint8Array)]).toEqual([1]);
  });

  it('writes many rows across many batches', async () => {
    const w = await openWarehouse(1000);
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    for (let i = 0; i < 10_000; i++) {
      await w.upsert('items', {
        id: i % 7000,
        name: `name-${i}`,
        amount: i * 1.5,
        active: i % 2 === 0,
        updated_at: new Date(1_700_000_000_000 + i),
      });
    }
    await w.close();
    open.splice(0);
    const [summary] = await query(
      'SELECT count(*) AS n, sum(amount) AS total, max(updated_at) AS last, count_if(active) AS active FROM tester.items',
    );
    // ids 0..2999 were written twice: the second write (i = id + 7000) wins.
    const expected = Array.from({ length: 7000 }, (_, id) => (id < 3000 ? id + 7000 : id) * 1.5).reduce(
      (a, b) => a + b,
      0,
    );
    expect(summary?.n).toBe(7000n);
    expect(summary?.total).toBe(expected);
    expect((summary?.last as Date).getTime()).toBe(1_700_000_000_000 + 9999);
    const [one] = await query('SELECT name FROM tester.items WHERE id = 5');
    expect(one?.name).toBe('name-7005');
  });

  it('refuses to open one file twice in a process', async () => {
    await openWarehouse();
    await expect(Warehouse.open(path)).rejects.toThrow(/already open/);
  });
});
