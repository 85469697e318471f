import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { start, type PostgresPeer } from '../peers/postgres.js';
import { scaffold, scratch, useLocalConfiguration } from './support.js';

/**
 * Issue 24, point 7: PostgreSQL `bigint` and `numeric` landed as VARCHAR, undocumented. Now the
 * warehouse types are the Python SDK's for the same rows (templates/database/README.md, "Column
 * types"): bigint → BIGINT, exact past 2^53; numeric → its exact text, VARCHAR as the SDK infers a
 * Decimal, or DECIMAL(p, s) when the connector declares the column.
 */

const SUPERUSER_PASSWORD = 'types-test-superuser-6b1e';
let peer: PostgresPeer;
let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  [peer, work] = await Promise.all([
    start({ password: SUPERUSER_PASSWORD, database: 'shop', ssl: false }),
    scratch('postgres-types'),
  ]);
  const { default: pg } = await import('pg');
  const admin = new pg.Client({
    host: peer.host,
    port: peer.port,
    user: peer.user,
    database: 'postgres',
    password: SUPERUSER_PASSWORD,
  });
  await admin.connect();
  try {
    // The template's own sample data, as its README has it run, then wider values than it holds.
    await admin.query(await readFile(new URL('../../templates/database/sample-data.sql', import.meta.url), 'utf8'));
    await admin.query(
      `alter table public.orders add column quantity integer, add column paid boolean, add column meta jsonb, add column big_total numeric`,
    );
    await admin.query(
      `update public.orders set quantity = id % 3, paid = id % 2 = 0, meta = jsonb_build_object('source', 'web'), big_total = 12345678901234567890.123456789`,
    );
    await admin.query(
      `insert into public.orders values (9007199254740993, 'open', 99999999.99, timestamptz '2024-06-01 00:00:00+00', 1, true, '{}', 1)`,
    );
  } finally {
    await admin.end();
  }
});
afterAll(async () => {
  await peer?.stop();
  await work?.remove();
});

async function columns(dir: string, table: string): Promise<Record<string, string>> {
  const rows = await query(
    dir,
    `select column_name, data_type from information_schema.columns where table_schema = 'default_schema' and table_name = '${table}'`,
  );
  return Object.fromEntries(rows.map(([name, type]) => [name as string, type as string]));
}

async function query(dir: string, sql: string): Promise<unknown[][]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS();
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

const local = () => ({ host: peer.host, port: String(peer.port) });

describe('PostgreSQL column types in the warehouse', () => {
  it('undeclared: bigint → BIGINT (exact past 2^53), integer → BIGINT, boolean, jsonb → JSON, numeric → exact VARCHAR', async () => {
    const dir = await scaffold(work.root, 'inferred', 'database');
    await useLocalConfiguration(dir, local());
    // The template declares its sample table's columns: without them, every type is inferred.
    const connector = await readFile(join(dir, 'connector.ts'), 'utf8');
    const undeclared = connector.replace('      columns: COLUMNS,\n', '');
    expect(undeclared).not.toBe(connector);
    await writeFile(join(dir, 'connector.ts'), undeclared);
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(await columns(dir, 'orders')).toMatchObject({
      id: 'BIGINT',
      quantity: 'BIGINT',
      paid: 'BOOLEAN',
      meta: 'JSON',
      updated_at: 'TIMESTAMP WITH TIME ZONE',
      amount: 'VARCHAR',
      big_total: 'VARCHAR',
    });
    expect(
      await query(dir, `select id, amount, big_total from default_schema.orders where id > 9007199254740991`),
    ).toEqual([[9007199254740993n, '99999999.99', '1']]);
    expect(await query(dir, `select amount, big_total from default_schema.orders where id = 5`)).toEqual([
      ['6.25', '12345678901234567890.123456789'],
    ]);
  });

  it("declared DECIMAL(10, 2) in schema() (the template's own declaration): numeric lands as DECIMAL(10,2), exact", async () => {
    const dir = await scaffold(work.root, 'declared', 'database');
    await useLocalConfiguration(dir, local());
    expect(await readFile(join(dir, 'connector.ts'), 'utf8')).toContain(
      "amount: { type: 'DECIMAL', precision: 10, scale: 2 },",
    );
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect((await columns(dir, 'orders')).amount).toBe('DECIMAL(10,2)');
    expect(await query(dir, `select sum(amount)::varchar from default_schema.orders where id <= 50`)).toEqual([
      ['1593.75'],
    ]);
  });
});
