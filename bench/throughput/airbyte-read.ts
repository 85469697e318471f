/**
 * `connector-auth airbyte read` throughput and memory, against `debug` on the same connector and
 * the same rows in the same run (the ratio holds on a noisy machine):
 *
 * - records/s: 300,000 rows through `airbyte read` into a pipe this process drains (counting lines,
 *   as Airbyte's worker reads them), against `debug` writing them into DuckDB; both the built CLI in
 *   a child process, wall clock from spawn to exit (each pays its start-up, ~0.5 s), and net of the
 *   fixed cost each command shows on a run of 0 rows; alternated in 3 rounds, medians, with each
 *   one's CPU time (user + system, all threads), which a busy machine moves far less than wall clock;
 * - peak RSS of `airbyte read` for 100,000 and 1,000,000 rows (VmHWM of the child, sampled every
 *   20 ms): flat means bounded by the batch, not by the sync.
 *
 * - the floors (issue 43), in the same run, for 1,000,000 rows, alternated with `airbyte read` in 3
 *   rounds (medians): a bare Node process (no connector-auth) that makes the same RECORD lines with
 *   `JSON.stringify` and writes them to a pipe in 64 KiB chunks, drained and counted as `airbyte read`
 *   is; and the same process making the lines without writing them (`JSON.stringify` alone). Ratios
 *   wall clock (each process's start included) and net of each one's run of 0 rows.
 *
 * The connector makes its rows in memory (8 typed columns, `ROW` below; a checkpoint every 10,000)
 * behind a real probe of a loopback HTTP API with a bearer token.
 *
 *   npx tsx bench/throughput/airbyte-read.ts    prints the figures as JSON
 */
import { spawn } from 'node:child_process';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));
const TOKEN = 'bench-airbyte-token-0123456789';
const RATIO_ROWS = 300_000;
const FLOOR_ROWS = 1_000_000;
const FLOOR_ROUNDS = 3;

/** One row of 8 typed columns, as the connector, the bare writer and the in-process floor make it. */
const ROW = `({ id: i, name: 'name-' + i, amount: i * 1.5, active: i % 2 === 0, updated_at: at, quantity: i % 1000, code: 'C' + (i % 97), note: 'row ' + i + ' of the bench' })`;
const COLUMNS = `{ id: 'LONG', name: 'STRING', amount: 'DOUBLE', active: 'BOOLEAN', updated_at: 'UTC_DATETIME', quantity: 'INT', code: 'STRING', note: 'STRING' }`;

/** The bare writer: the same lines, JSON.stringify and stdout with back-pressure, nothing else. */
const BARE_WRITER = `
const rows = Number(process.argv[1]);
const write = process.argv[2] !== 'stringify-only';
const at = new Date('2026-01-01T00:00:00Z');
let pending = '';
(async () => {
  for (let i = 0; i < rows; i++) {
    pending += JSON.stringify({ type: 'RECORD', record: { stream: 'items', data: ${ROW}, emitted_at: Date.now() } }) + '\\n';
    if (pending.length >= 65536) {
      if (!write) {
        pending = '';
        continue;
      }
      const ok = process.stdout.write(pending);
      pending = '';
      if (!ok) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
  }
  if (write) process.stdout.write(pending);
})();
`;
const CONNECTOR = `
import { defineConnector, z } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  configuration: z.object({ rows: z.string().transform(Number) }),
  schema: () => [{ table: 'items', primary_key: ['id'], columns: ${COLUMNS} }],
  async update({ configuration, op }) {
    const at = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < configuration.rows; i++) {
      await op.upsert('items', ${ROW});
      if ((i + 1) % 10000 === 0) await op.checkpoint({ after: i });
    }
    await op.checkpoint({ after: configuration.rows });
  },
});
`;

interface ChildRun {
  seconds: number;
  lines: number;
  peakRssMb: number;
  /** user + system CPU of the process and its threads (DuckDB's among them), sampled as RSS is */
  cpuSeconds: number;
}

/** Clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The CLI in a child; stdout drained and its lines counted; VmHWM sampled until it exits. */
function run(args: string[], node: string[] = [BIN]): Promise<ChildRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...node, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = 0;
  let stderr = '';
  let peakKb = 0;
  let cpuTicks = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const sample = setInterval(() => {
    readFile(`/proc/${child.pid}/status`, 'utf8').then(
      (status) => (peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))),
      () => undefined,
    );
    readFile(`/proc/${child.pid}/stat`, 'utf8').then(
      (stat) => {
        // Fields after the command's closing parenthesis: state is the first, utime the 12th, stime the 13th.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Math.max(cpuTicks, Number(fields[11]) + Number(fields[12]));
      },
      () => undefined,
    );
  }, 20);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      if (code !== 0) return reject(new Error(`connector-auth ${args[0]} exited with ${code}: ${stderr.slice(-500)}`));
      resolve({
        seconds: (performance.now() - started) / 1000,
        lines,
        peakRssMb: Math.round(peakKb / 1024),
        cpuSeconds: cpuTicks / TICKS_PER_SECOND,
      });
    });
  });
}

const server = createServer((req, res) => {
  res
    .writeHead(req.headers.authorization === `Bearer ${TOKEN}` ? 200 : 401, { 'content-type': 'application/json' })
    .end('{"ok":true}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const dir = await mkdtemp(join(tmpdir(), 'connector-auth-bench-airbyte-'));
try {
  await writeFile(join(dir, 'connector.ts'), CONNECTOR);
  const configuration = (rows: number) => ({
    auth_method: 'bearer',
    token: TOKEN,
    base_url: base,
    probe_path: 'health',
    rows: String(rows),
  });
  const catalog = join(dir, 'catalog.json');
  await writeFile(
    catalog,
    JSON.stringify({
      streams: [
        {
          stream: { name: 'items', json_schema: {}, supported_sync_modes: ['full_refresh'] },
          sync_mode: 'full_refresh',
          destination_sync_mode: 'overwrite',
        },
      ],
    }),
  );
  const read = async (rows: number) => {
    const config = join(dir, `airbyte-${rows}.json`);
    await writeFile(config, JSON.stringify(configuration(rows)));
    const result = await run(['airbyte', 'read', dir, '--config', config, '--catalog', catalog]);
    // RECORDs, one STATE per 10,000, a few LOG lines: anything less means records went missing.
    if (result.lines < rows) throw new Error(`airbyte read printed ${result.lines} lines for ${rows} rows`);
    return result;
  };

  // Each command's fixed cost (start-up, tsx, the probe; DuckDB's open for debug), from a run of 0 rows.
  await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration(0)));
  const debugEmpty = await run(['debug', dir]);
  const airbyteEmpty = await read(0);
  await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration(RATIO_ROWS)));
  // debug and airbyte read alternated in rounds, each figure the median of its rounds: wall clock
  // moves with the machine's load, CPU time (DuckDB's threads included) much less.
  const pairs: { debug: ChildRun; airbyte: ChildRun }[] = [];
  for (let round = 0; round < FLOOR_ROUNDS; round++) {
    await rm(join(dir, 'files'), { recursive: true, force: true });
    pairs.push({ debug: await run(['debug', dir]), airbyte: await read(RATIO_ROWS) });
  }
  const debug = medianRun(pairs.map((p) => p.debug));
  const airbyte = medianRun(pairs.map((p) => p.airbyte));
  const small = await read(100_000);
  // The floors, alternated with airbyte read in rounds; each figure the median of its rounds.
  const bareEmpty = await run(['0'], ['-e', BARE_WRITER]);
  const rounds: { read: ChildRun; bare: ChildRun; stringify: ChildRun }[] = [];
  for (let round = 0; round < FLOOR_ROUNDS; round++) {
    const large = await read(FLOOR_ROWS);
    const bare = await run([String(FLOOR_ROWS)], ['-e', BARE_WRITER]);
    if (bare.lines !== FLOOR_ROWS) throw new Error(`the bare writer printed ${bare.lines} lines`);
    const stringify = await run([String(FLOOR_ROWS), 'stringify-only'], ['-e', BARE_WRITER]);
    rounds.push({ read: large, bare, stringify });
  }
  const large = rounds[0]!.read;
  const net = (r: ChildRun, empty: ChildRun) => r.seconds - empty.seconds;
  const ratio = (floor: (r: (typeof rounds)[0]) => number, ours: (r: (typeof rounds)[0]) => number) =>
    Number(median(rounds.map((r) => floor(r) / ours(r))).toFixed(2));
  console.log(
    JSON.stringify({
      airbyte_read_records_per_s: Math.round(RATIO_ROWS / airbyte.seconds),
      airbyte_read_debug_records_per_s: Math.round(RATIO_ROWS / debug.seconds),
      airbyte_read_vs_debug: Number(median(pairs.map((p) => p.debug.seconds / p.airbyte.seconds)).toFixed(2)),
      airbyte_read_vs_debug_cpu: Number(median(pairs.map((p) => p.debug.cpuSeconds / p.airbyte.cpuSeconds)).toFixed(2)),
      airbyte_read_cpu_s: median(pairs.map((p) => p.airbyte.cpuSeconds)),
      airbyte_read_debug_cpu_s: median(pairs.map((p) => p.debug.cpuSeconds)),
      // Without each command's fixed cost: the rows alone.
      airbyte_read_net_records_per_s: Math.round(RATIO_ROWS / (airbyte.seconds - airbyteEmpty.seconds)),
      airbyte_read_debug_net_records_per_s: Math.round(RATIO_ROWS / (debug.seconds - debugEmpty.seconds)),
      airbyte_read_net_vs_debug: Number(
        ((debug.seconds - debugEmpty.seconds) / (airbyte.seconds - airbyteEmpty.seconds)).toFixed(2),
      ),
      airbyte_read_empty_s: Number(airbyteEmpty.seconds.toFixed(2)),
      airbyte_read_debug_empty_s: Number(debugEmpty.seconds.toFixed(2)),
      airbyte_floor_rows: FLOOR_ROWS,
      airbyte_floor_rounds: FLOOR_ROUNDS,
      airbyte_read_1m_records_per_s: Math.round(FLOOR_ROWS / median(rounds.map((r) => r.read.seconds))),
      airbyte_read_1m_net_records_per_s: Math.round(FLOOR_ROWS / median(rounds.map((r) => net(r.read, airbyteEmpty)))),
      airbyte_floor_stringify_net_records_per_s: Math.round(
        FLOOR_ROWS / median(rounds.map((r) => net(r.stringify, bareEmpty))),
      ),
      airbyte_floor_bare_pipe_records_per_s: Math.round(FLOOR_ROWS / median(rounds.map((r) => r.bare.seconds))),
      airbyte_floor_bare_pipe_net_records_per_s: Math.round(
        FLOOR_ROWS / median(rounds.map((r) => net(r.bare, bareEmpty))),
      ),
      airbyte_read_net_vs_stringify_floor: ratio(
        (r) => net(r.stringify, bareEmpty),
        (r) => net(r.read, airbyteEmpty),
      ),
      airbyte_read_vs_bare_pipe_floor: ratio(
        (r) => r.bare.seconds,
        (r) => r.read.seconds,
      ),
      airbyte_read_net_vs_bare_pipe_floor: ratio(
        (r) => net(r.bare, bareEmpty),
        (r) => net(r.read, airbyteEmpty),
      ),
      // CPU time (all threads) against the bare writer's: what a busy machine moves least.
      airbyte_read_cpu_vs_bare_pipe_floor: ratio(
        (r) => r.bare.cpuSeconds,
        (r) => r.read.cpuSeconds,
      ),
      airbyte_read_peak_rss_100k_mb: small.peakRssMb,
      airbyte_read_peak_rss_1m_mb: large.peakRssMb,
      // The same V8 in a process that keeps nothing either: how much of the growth is V8's heap sizing.
      airbyte_floor_bare_pipe_peak_rss_1m_mb: rounds[0]!.bare.peakRssMb,
      airbyte_read_debug_peak_rss_mb: debug.peakRssMb,
    }),
  );
} finally {
  server.close();
  await rm(dir, { recursive: true, force: true });
}

/** The run of median wall time. */
function medianRun(runs: ChildRun[]): ChildRun {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
