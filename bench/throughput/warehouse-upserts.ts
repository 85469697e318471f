/**
 * Local warehouse throughput: 1,000,000 upserts with a primary key through `op.upsert` (the secret
 * guard, then the batched warehouse, src/hosts/local/warehouse/), against DuckDB's own appender fed
 * the same rows in 2,048-row chunks into a fresh file (bench/throughput/warehouse-raw-appender.ts): what the
 * engine takes from Node with nothing in between. Each runs in a child process of its own (so its
 * peak RSS, read from process.resourceUsage().maxRSS after its file is closed, is its own), in
 * alternating rounds, so both see the same stretches of a noisy machine; the figure is the median
 * of the rounds' ratios.
 *
 * Footnote: one prepared INSERT OR REPLACE per row (in one transaction, same DuckDB settings),
 * measured on 2,000 rows, the way nobody should write a warehouse.
 *
 *   npx tsx bench/throughput/warehouse-upserts.ts    prints the figures as JSON
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Row-at-a-time costs a few hundred µs per row at any table size, so 2,000 rows give its rate. */
const NAIVE_ROWS = 2_000;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./warehouse-child.ts', import.meta.url));
const RAW = fileURLToPath(new URL('./warehouse-raw-appender.ts', import.meta.url));
const ROUNDS = 5;

interface ChildResult {
  rows: number;
  seconds: number;
  rows_per_s: number;
  cpu_s: number;
  max_rss_mb: number;
}

async function inChild(script: string, dir: string): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    throw new Error(`${script} exited with ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(): Promise<Record<string, number>> {
  const ours: ChildResult[] = [];
  const raw: ChildResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [script, results] of [
      [RAW, raw],
      [CHILD, ours],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'bench-warehouse-'));
      try {
        results.push(await inChild(script, dir));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'bench-warehouse-'));
  let naivePerS: number;
  try {
    naivePerS = await naive(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const ratios = ours.map((result, i) => result.rows_per_s / raw[i]!.rows_per_s);
  const oursPerS = median(ours.map((result) => result.rows_per_s));
  const round2 = (value: number) => Math.round(value * 100) / 100;
  return {
    warehouse_upserts_per_s: Math.round(oursPerS),
    warehouse_raw_appender_per_s: Math.round(median(raw.map((result) => result.rows_per_s))),
    warehouse_over_raw_appender_ratio: round2(median(ratios)),
    warehouse_over_raw_appender_min_ratio: round2(Math.min(...ratios)),
    warehouse_over_raw_appender_max_ratio: round2(Math.max(...ratios)),
    // CPU seconds (every thread) per row, raw over ours: less moved by a busy machine than the wall clock.
    warehouse_over_raw_appender_cpu_ratio: round2(median(ours.map((result, i) => raw[i]!.cpu_s / result.cpu_s))),
    warehouse_1m_peak_rss_mb: Math.round(median(ours.map((result) => result.max_rss_mb))),
    warehouse_raw_appender_peak_rss_mb: Math.round(median(raw.map((result) => result.max_rss_mb))),
    warehouse_naive_insert_per_s: Math.round(naivePerS),
    warehouse_over_naive_ratio: Math.round(oursPerS / naivePerS),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
