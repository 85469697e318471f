import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists, initTemplate, leakForms, readTree } from '../helpers/cli.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../peers/postgres-tls.js';

/**
 * Through the built CLI (`npm test` builds first), as a user runs it: `init --template database`,
 * the placeholder configuration validated, then the connector pointed at a real PostgreSQL (TLS,
 * scram-sha-256: test/peers/postgres.ts) and synced twice by `debug`: the second run reads only the
 * rows changed since the cursor saved by the first.
 */

const PASSWORD = 'Db-T3mplate/+pw?&x';
const WRONG = 'Wr0ng-T3mplate/+pw?&y';
const DATABASE = 'sales';
/** More than two batches of the template's batch_size (1000), with many rows sharing one updated_at. */
const ROWS = 2500;

let peer: TlsPostgresPeer;
let client: pg.Client;
let root: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    startTlsPostgres({ password: PASSWORD, database: DATABASE }),
    mkdtemp(join(tmpdir(), 'connector-auth-database-template-')),
  ]);
  client = await peer.superuser();
  await client.query(
    `create table public.orders (id bigint primary key, status text not null, amount numeric(10, 2) not null, updated_at timestamptz)`,
  );
  // 300 rows share each updated_at (microseconds included): ties cross the batch boundaries.
  await client.query(
    `insert into public.orders
     select i, 'new', i * 1.25, timestamptz '2024-01-01 00:00:00.123456+00' + (i / 300) * interval '1 second'
       from generate_series(1, $1::int) as i`,
    [ROWS],
  );
  // A row without a cursor value is never synced.
  await client.query(`insert into public.orders values (0, 'draft', 0, null)`);
});

afterAll(async () => {
  await client?.end();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const project = (name: string, overrides?: Record<string, string>) => initTemplate(root, name, 'database', overrides);

const connection = (password = PASSWORD) => ({
  host: peer.host,
  port: String(peer.port),
  database: DATABASE,
  user: peer.user,
  password,
  tls_ca_certificate: peer.ca.certificatePem,
});

async function maxCursor(): Promise<{ cursor: string; id: string }> {
  const { rows } = await client.query<{ cursor: string; id: string }>(
    `select updated_at::text as cursor, id::text as id from public.orders where updated_at is not null order by updated_at desc, id desc limit 1`,
  );
  return rows[0]!;
}

async function warehouse<T>(dir: string, sql: string): Promise<T[][]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS() as T[][];
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

describe('templates/database', () => {
  it('init writes the template; validate refuses its placeholder password, then passes once it is set (no network)', async () => {
    const dir = await project('fresh');
    const placeholder = await cli(['validate', dir, '--json']);
    expect(placeholder.code).toBe(2);
    expect(JSON.parse(placeholder.stdout)).toMatchObject({ ok: false, code: 'placeholder_value', key: 'password' });
    const set = await project('set', { password: PASSWORD });
    const run = await cli(['validate', set, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      auth_method: 'password',
      source: 'postgres',
      secret_keys: ['password'],
      unknown_keys: [],
    });
  });

  it('debug syncs the table in batches, saves the cursor, and a second debug reads only the changed rows', async () => {
    const dir = await project('sync', connection());
    const first = await cli(['debug', dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`Upserts\\s+\\|\\s+${ROWS}\\b`));
    expect(first.stdout).toMatch(/Checkpoints\s+\|\s+3\b/);
    const last = await maxCursor();
    expect(JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8'))).toEqual({
      table: 'public.orders',
      cursor_column: 'updated_at',
      primary_key: 'id',
      cursor: last.cursor,
      key: [String(ROWS)],
    });
    expect(last.cursor).toMatch(/\.123456/);
    // bigint lands as BIGINT, numeric as the template's declared DECIMAL(10, 2), exact (templates/database/README.md).
    expect(
      await warehouse(
        dir,
        `select count(*), count(distinct id), count(*) filter (where status = 'draft'), (max(amount) filter (where id = ${ROWS}))::varchar from default_schema.orders`,
      ),
    ).toEqual([[BigInt(ROWS), BigInt(ROWS), 0n, (ROWS * 1.25).toFixed(2)]]);

    // Two rows changed and three new ones: the next sync upserts those five only.
    await client.query(`update public.orders set status = 'shipped', updated_at = now() where id in (7, 1200)`);
    await client.query(
      `insert into public.orders select i, 'new', 1, now() from generate_series($1::int, $2::int) as i`,
      [ROWS + 1, ROWS + 3],
    );
    const second = await cli(['debug', dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Upserts\s+\|\s+5\b/);
    expect(second.stdout).toMatch(/Checkpoints\s+\|\s+1\b/);
    const state = JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8')) as {
      cursor: string;
      key: string[];
    };
    expect(state).toMatchObject({ cursor: (await maxCursor()).cursor, key: [(await maxCursor()).id] });
    expect(
      await warehouse(dir, `select id, status from default_schema.orders where status = 'shipped' order by id`),
    ).toEqual([
      [7n, 'shipped'],
      [1200n, 'shipped'],
    ]);
    expect((await warehouse<bigint>(dir, 'select count(*) from tester.orders'))[0]![0]).toBe(BigInt(ROWS + 3));

    const third = await cli(['debug', dir]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/Upserts\s+\|\s+0\b/);

    const output =
      [first, second, third].map((r) => r.stdout + r.stderr).join('\n') + (await readTree(join(dir, 'files')));
    for (const form of leakForms(PASSWORD)) expect(output).not.toContain(form);
  });

  it('a table name is quoted, never pasted into the SQL: the statement fails (exit 1), nothing is dropped', async () => {
    const dir = await project('injection', { ...connection(), table: 'orders"; drop table orders; --' });
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(1);
    // One name, quotes and all: PostgreSQL looked for a table called exactly that.
    expect(run.stderr).toContain('relation "orders"; drop table orders; --" does not exist');
    expect((await client.query(`select to_regclass('public.orders') is not null as present`)).rows[0]).toEqual({
      present: true,
    });
  });

  it('validate: a malformed key of the connector is exit 2 naming it', async () => {
    const dir = await project('bad-batch', { ...connection(), batch_size: 'lots' });
    const run = await cli(['validate', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("key 'batch_size' must be a whole number from 1 to 100000");
  });

  it('a wrong password: exit 3 before update(), naming the key, the password nowhere, nothing written', async () => {
    const dir = await project('wrong', connection(WRONG));
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("check 'password'");
    for (const form of [...leakForms(WRONG), ...leakForms(PASSWORD)])
      expect(run.stdout + run.stderr).not.toContain(form);
    expect(await exists(join(dir, 'files'))).toBe(false);
  });
});
