/**
 * Local warehouse throughput: 1,000,000 upserts with a primary key through the batched writer
 * (src/hosts/local/warehouse/), against the naive way, one prepared INSERT OR REPLACE per row (in one
 * transaction, same DuckDB settings), measured on 2,000 rows in the same run so the ratio holds on a
 * noisy machine.
 *
 * The 1M run happens in a child process (bench/warehouse-child.ts) so that its peak RSS, read from
 * process.resourceUsage().maxRSS at its end, is the warehouse's alone.
 *
 *   npx tsx bench/warehouse-upserts.ts    prints the figures as JSON
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Row-at-a-time costs a few hundred µs per row at any table size, so 2,000 rows give its rate. */
const NAIVE_ROWS = 2_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./warehouse-child.ts', import.meta.url));

interface ChildResult {
  rows: number;
  seconds: number;
  rows_per_s: number;
  max_rss_mb: number;
}

async function batched(dir: string): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    throw new Error(`warehouse-child exited with ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  }
  return JSON.parse(line) as ChildResult;
}

/** The baseline: one prepared INSERT OR REPLACE per row, awaited, into the same table shape. */
async function naive(dir: string): Promise<number> {
  const { DuckDBInstance, DuckDBTimestampTZValue } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(join(dir, 'naive.db'), { threads: '1' });
  const connection = await instance.connect();
  try {
    await connection.run('CREATE SCHEMA tester');
    await connection.run(
      'CREATE TABLE tester.items (id BIGINT, name VARCHAR, amount DOUBLE, active BOOLEAN, updated_at TIMESTAMPTZ, ' +
        '_fivetran_synced TIMESTAMPTZ, _fivetran_deleted BOOLEAN DEFAULT false, PRIMARY KEY (id))',
    );
    const insert = await connection.prepare(
      'INSERT OR REPLACE INTO tester.items VALUES ($1, $2, $3, $4, $5, now(), false)',
    );
    const started = performance.now();
    // One transaction: the baseline pays per-row statement cost, not one commit per row
    // (autocommitted, it is slower still).
    await connection.run('BEGIN TRANSACTION');
    for (let i = 0; i < NAIVE_ROWS; i++) {
      const row = { id: i, name: 'name-' + i, amount: i * 1.5, active: i % 2 === 0, updated_at: new Date() };
      insert.bindBigInt(1, BigInt(row.id));
      insert.bindVarchar(2, row.name);
      insert.bindDouble(3, row.amount);
      insert.bindBoolean(4, row.active);
      insert.bindTimestampTZ(5, new DuckDBTimestampTZValue(BigInt(row.updated_at.getTime()) * 1000n));
      await insert.run();
    }
    await connection.run('COMMIT');
    const seconds = (performance.now() - started) / 1000;
    const reader = await connection.runAndReadAll('SELECT count(*) FROM tester.items');
    if (Number(reader.getRowsJS()[0]?.[0]) !== NAIVE_ROWS) throw new Error('the naive baseline lost rows');
    return NAIVE_ROWS / seconds;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export async function run(): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-warehouse-'));
  try {
    const result = await batched(dir);
    const naivePerS = await naive(dir);
    return {
      warehouse_upserts_per_s: Math.round(result.rows_per_s),
      warehouse_naive_insert_per_s: Math.round(naivePerS),
      warehouse_speedup_ratio: Math.round((result.rows_per_s / naivePerS) * 10) / 10,
      warehouse_1m_peak_rss_mb: Math.round(result.max_rss_mb),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
