/**
 * Child process of bench/throughput/warehouse-upserts.ts, the baseline: DuckDB's own appender (the Node API's
 * data chunks of 2,048 rows, `appendDataChunk`) fed the same 1,000,000 rows as the warehouse's
 * run, into a fresh file's table of the same shape (primary key included, the warehouse's two
 * columns set as it sets them), with nothing else: no guard, no buffering, no type inference, no
 * upsert semantics. What the engine takes from Node when handed ready rows.
 *
 *   node --import tsx bench/throughput/warehouse-raw-appender.ts <dir>    prints {"rows","seconds","rows_per_s","cpu_s","max_rss_mb"}
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as DuckDB from '@duckdb/node-api';

const ROWS = 1_000_000;
const CHUNK = 2_048;

const dir = process.argv[2];
if (!dir) throw new Error('usage: warehouse-raw-appender.ts <empty directory>');

const api = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;
const instance = await api.DuckDBInstance.create(join(dir, 'raw.db'), { threads: '1' });
const connection = await instance.connect();
await connection.run(`SET TimeZone = 'UTC'`);
await connection.run('CREATE SCHEMA tester');
await connection.run(
  'CREATE TABLE tester.items (id BIGINT, name VARCHAR, amount DOUBLE, active BOOLEAN, updated_at TIMESTAMPTZ, ' +
    '_fivetran_synced TIMESTAMPTZ, _fivetran_deleted BOOLEAN DEFAULT false, PRIMARY KEY (id))',
);
const types = [api.BIGINT, api.VARCHAR, api.DOUBLE, api.BOOLEAN, api.TIMESTAMPTZ, api.TIMESTAMPTZ, api.BOOLEAN];
interface Vector {
  setItem(index: number, value: unknown): void;
  flush(): void;
}

const started = performance.now();
const cpuStarted = process.cpuUsage();
const appender = await connection.createAppender('items', 'tester');
const synced = { micros: BigInt(Date.now()) * 1000n };
for (let offset = 0; offset < ROWS; offset += CHUNK) {
  const size = Math.min(CHUNK, ROWS - offset);
  const chunk = api.DuckDBDataChunk.create(types, size);
  const [id, name, amount, active, updatedAt, syncedAt, deleted] = types.map(
    (_, c) => chunk.getColumnVector(c) as unknown as Vector,
  ) as Vector[];
  for (let j = 0; j < size; j++) {
    const i = offset + j;
    // The row as the warehouse benchmark's connector makes it.
    const row = { id: i, name: 'name-' + i, amount: i * 1.5, active: i % 2 === 0, updated_at: new Date() };
    id!.setItem(j, BigInt(row.id));
    name!.setItem(j, row.name);
    amount!.setItem(j, row.amount);
    active!.setItem(j, row.active);
    updatedAt!.setItem(j, { micros: BigInt(row.updated_at.getTime()) * 1000n });
    syncedAt!.setItem(j, synced);
    deleted!.setItem(j, false);
  }
  for (const vector of [id, name, amount, active, updatedAt, syncedAt, deleted]) vector!.flush();
  appender.appendDataChunk(chunk);
}
appender.flushSync(); // every row committed to the file
appender.closeSync();
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6; // every thread's, DuckDB's included
connection.closeSync();
instance.closeSync(); // as the warehouse's run closes its file before its peak is read
const maxRssMb = process.resourceUsage().maxRSS / 1024;

const check = await api.DuckDBInstance.create(join(dir, 'raw.db'));
const checking = await check.connect();
const reader = await checking.runAndReadAll('SELECT count(*), count(DISTINCT id), max(id) FROM tester.items');
const [count, distinct, max] = (reader.getRowsJS()[0] ?? []).map(Number);
checking.closeSync();
check.closeSync();
if (count !== ROWS || distinct !== ROWS || max !== ROWS - 1) throw new Error('the raw appender lost rows');

process.stdout.write(
  `${JSON.stringify({ rows: ROWS, seconds, rows_per_s: ROWS / seconds, cpu_s: cpuSeconds, max_rss_mb: maxRssMb })}\n`,
);
