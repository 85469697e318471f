/**
 * Child process of bench/throughput/warehouse-upserts.ts: 1,000,000 batched upserts into a fresh warehouse,
 * alone in its process so that its peak RSS is the warehouse's (plus Node and tsx). Through
 * `op.upsert`, as a connector writes: the secret guard (five registered secrets) checks each row
 * before the warehouse takes it.
 *
 *   node --import tsx bench/throughput/warehouse-child.ts <dir>    prints {"rows","seconds","rows_per_s","cpu_s","max_rss_mb"}
 */
import { join } from 'node:path';
import { createOperations } from '../../src/connector/index.js';
import { Warehouse } from '../../src/hosts/local/warehouse/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

const ROWS = 1_000_000;

const dir = process.argv[2];
if (!dir) throw new Error('usage: warehouse-child.ts <empty directory>');

const warehouse = await Warehouse.open(
  join(dir, 'warehouse.db'),
  process.env.BATCH ? { batchSize: Number(process.env.BATCH) } : {},
);
await warehouse.declare([{ table: 'items', primary_key: ['id'] }]);
const registry = new SecretRegistry();
for (let i = 0; i < 5; i++) registry.register(`secret_${i}`, `bench-secret-value-${i}-Zq81xT`);
const { op } = createOperations(warehouse, { save: async () => {} }, registry);
const started = performance.now();
const cpuStarted = process.cpuUsage();
for (let i = 0; i < ROWS; i++) {
  await op.upsert('items', { id: i, name: 'name-' + i, amount: i * 1.5, active: i % 2 === 0, updated_at: new Date() });
}
await warehouse.flush(); // every row committed to the file
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6; // every thread's, DuckDB's included
await warehouse.close();
const maxRssMb = process.resourceUsage().maxRSS / 1024;

// Check what the file holds (after the peak was read: this query is not the warehouse's cost).
const { DuckDBInstance } = await import('@duckdb/node-api');
const instance = await DuckDBInstance.create(join(dir, 'warehouse.db'));
const connection = await instance.connect();
const reader = await connection.runAndReadAll('SELECT count(*), count(DISTINCT id), max(id) FROM tester.items');
const [count, distinct, max] = (reader.getRowsJS()[0] ?? []).map(Number);
connection.closeSync();
instance.closeSync();
if (count !== ROWS || distinct !== ROWS || max !== ROWS - 1)
  throw new Error('the warehouse does not hold the rows written');

process.stdout.write(
  `${JSON.stringify({ rows: ROWS, seconds, rows_per_s: ROWS / seconds, cpu_s: cpuSeconds, max_rss_mb: maxRssMb })}\n`,
);
