/**
 * `connector-auth serve` (the Fivetran partner SDK host), measured beside `debug` in the same run:
 *
 * - records/s through Update to a gRPC client, as a ratio to `debug` into DuckDB, on the same
 *   connector and the same 1,000,000 rows (the connector makes them itself after a probe that asks
 *   nothing, so neither run measures a source). Two clients: one that takes each message as bytes
 *   (the server and the transport), one that decodes every message with protobufjs from our .proto
 *   files (what a Node client of the platform would pay on top);
 * - the server's peak RSS (VmHWM) after a 100,000-record and after a 1,000,000-record Update, each
 *   in a fresh server. With Node's default flags V8 sizes the heap of a process that allocates
 *   fast generously (it collects less often while memory is plentiful), so peak RSS creeps up with
 *   the sync's length without anything being kept; the same pair is therefore also measured at
 *   1,000,000 and 3,000,000 records with the old space capped (`--max-old-space-size=64`): flat, at
 *   the same speed, which is what "bounded by the batch, not by the sync" means;
 * - serve start-to-listening: spawn to the "listening on" line, median of 5;
 * - the floors (issue 43), in the same run: protobufjs encoding the same UpdateResponse `Records`
 *   messages, 100 records each, for the same 1,000,000 rows of 8 typed columns, in this process, no
 *   transport: its generated `encode` from plain objects, and proto-loader's serializer (`fromObject`
 *   + `encode`, what a generic gRPC server runs).
 *
 *   npx tsx bench/throughput/fivetran-serve.ts    prints the figures as JSON
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
// proto-loader's own protobufjs (a dependency of it): the floor's encoder, with no gRPC around it.
import protobuf from 'protobufjs';

const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));
const PROTOCOLS = fileURLToPath(new URL('../../protocols/fivetran/', import.meta.url));
const ROWS = 1_000_000;
const SMALL = 100_000;
const LONG = 3_000_000;
const CAPPED = ['--max-old-space-size=128'];

const CONNECTOR = `import { defineConnector, defineSource, z } from 'connector-auth';
const local = defineSource({ name: 'generated', summary: 'rows made in process', keys: z.object({}), needs: ['httpRequest'],
  async connect() { return { async probe() { return { target: 'nothing', outcome: 'ok', elapsedMs: 0 }; }, async close() {} }; } });
export default defineConnector({
  source: local,
  configuration: z.object({ rows: z.string().transform(Number) }),
  schema: () => [{ table: 'items', primary_key: ['id'], columns: { id: 'LONG', name: 'STRING', amount: 'DOUBLE', active: 'BOOLEAN', updated_at: 'UTC_DATETIME', quantity: 'INT', code: 'STRING', note: 'STRING' } }],
  async update({ configuration, op }) {
    const at = new Date();
    for (let i = 0; i < configuration.rows; i++) {
      await op.upsert('items', { id: i, name: 'name-' + i, amount: i * 1.5, active: i % 2 === 0, updated_at: at, quantity: i % 1000, code: 'C' + (i % 97), note: 'row ' + i + ' of the bench' });
      if ((i + 1) % 50000 === 0) await op.checkpoint({ next: i + 1 });
    }
    await op.checkpoint({ next: configuration.rows });
  },
});
`;

const configuration = (rows: number) => ({
  auth_method: 'bearer',
  token: 'bench-token-value-1234',
  rows: String(rows),
});

interface Server {
  port: number;
  pid: number;
  startedMs: number;
  stop(): Promise<void>;
}

async function startServer(project: string, nodeFlags: string[] = []): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'serve', project, '--port', '0', '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('close', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  const startedMs = performance.now() - started;
  child.stdout.resume();
  return {
    port,
    pid: child.pid!,
    startedMs,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The process's peak resident set so far (Linux), in MB. */
function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error('no VmHWM in /proc/<pid>/status');
  return Math.round(Number(match[1]) / 1024);
}

/** The Update method as proto-loader (protobufjs) defines it from our .proto files. */
function updateMethod(): grpc.MethodDefinition<object, unknown> {
  const definition = loader.loadSync('connector_sdk.proto', {
    includeDirs: [PROTOCOLS],
    keepCase: true,
    longs: String,
    enums: String,
    oneofs: true,
    defaults: false,
  });
  return (
    definition['fivetran_sdk.v2.SourceConnector'] as unknown as { Update: grpc.MethodDefinition<object, unknown> }
  ).Update;
}

/**
 * Seconds protobufjs takes to encode the Update's `Records` messages for `rows` rows, 100 a message:
 * `generic` with proto-loader's serializer (`fromObject` + `encode`, what a generic gRPC server
 * runs), otherwise protobufjs's generated `encode` straight from the plain objects (its fastest).
 */
function encodeFloor(rows: number, generic: boolean): number {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/') ? target : join(PROTOCOLS, target));
  root.loadSync('connector_sdk.proto', { keepCase: true });
  const type = root.lookupType('fivetran_sdk.v2.UpdateResponse');
  const serialize = generic
    ? updateMethod().responseSerialize
    : (message: object) => type.encode(message as protobuf.Message).finish();
  const at = new Date();
  const seconds = Math.floor(at.getTime() / 1000);
  const nanos = (at.getTime() % 1000) * 1e6;
  const record = (i: number) => ({
    table_name: 'items',
    type: generic ? 'UPSERT' : 0,
    data: {
      id: { long: i },
      name: { string: 'name-' + i },
      amount: { double: i * 1.5 },
      active: { bool: i % 2 === 0 },
      updated_at: { utc_datetime: { seconds, nanos } },
      quantity: { int: i % 1000 },
      code: { string: 'C' + (i % 97) },
      note: { string: 'row ' + i + ' of the bench' },
    },
  });
  let bytes = 0;
  const pass = (count: number) => {
    for (let i = 0; i < count; i += 100) {
      const batch = [];
      for (let j = i; j < Math.min(i + 100, count); j++) batch.push(record(j));
      bytes += serialize({ records: { records: batch } }).length;
    }
  };
  pass(50_000);
  const started = performance.now();
  pass(rows);
  if (bytes === 0) throw new Error('nothing encoded');
  return (performance.now() - started) / 1000;
}

/** One Update read to its end; returns records and seconds. `decode`: protobufjs for every message. */
async function update(port: number, rows: number, decode: boolean): Promise<{ records: number; seconds: number }> {
  const method = updateMethod();
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const started = performance.now();
  let records = 0;
  await new Promise<void>((resolve, reject) => {
    const stream = client.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      decode ? method.responseDeserialize : (bytes: Buffer) => bytes,
      { configuration: configuration(rows) },
    );
    stream.on('data', (message: unknown) => {
      if (!decode) return void (records += countRecords(message as Buffer));
      const m = message as { records?: { records: unknown[] } };
      records += m.records?.records.length ?? 0;
    });
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  client.close();
  if (records !== rows) throw new Error(`the Update sent ${records} records, not ${rows}`);
  return { records, seconds };
}

/** Records in an undecoded UpdateResponse: the Record fields (tag 0x0a) of its `records` (tag 0x32). */
function countRecords(bytes: Buffer): number {
  if (bytes[0] !== 0x32) return 0;
  let at = 1;
  while (bytes[at]! & 0x80) at++;
  at++;
  let count = 0;
  while (at < bytes.length) {
    at++; // tag 0x0a
    let length = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++]!;
      length += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(byte & 0x80)) break;
    }
    at += length;
    count++;
  }
  return count;
}

function debugSeconds(project: string): number {
  const run = spawnSync(process.execPath, [BIN, 'debug', project], { encoding: 'utf8' });
  const match = /Sync SUCCEEDED in ([\d.]+) s/.exec(run.stdout);
  if (run.status !== 0 || !match) throw new Error(`debug failed (${run.status}): ${run.stderr.slice(-500)}`);
  return Number(match[1]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<Record<string, number>> {
  const project = await mkdtemp(join(tmpdir(), 'bench-serve-'));
  try {
    await writeFile(join(project, 'connector.ts'), CONNECTOR);
    await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration(ROWS)));

    const debug = debugSeconds(project);

    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await startServer(project);
      starts.push(s.startedMs);
      await s.stop();
    }

    const small = await startServer(project);
    await update(small.port, SMALL, false);
    const smallRss = peakRssMb(small.pid);
    await small.stop();

    const server = await startServer(project);
    const raw = await update(server.port, ROWS, false);
    const rss = peakRssMb(server.pid);
    const decoded = await update(server.port, ROWS, true);
    await server.stop();

    /** Peak RSS and records/s of one Update in a fresh server with the old space capped. */
    const capped = async (rows: number) => {
      const s = await startServer(project, CAPPED);
      const { seconds } = await update(s.port, rows, false);
      const peak = peakRssMb(s.pid);
      await s.stop();
      return { peak, perSecond: Math.round(rows / seconds) };
    };
    const cappedShort = await capped(ROWS);
    const cappedLong = await capped(LONG);
    const floor = encodeFloor(ROWS, false);
    const genericFloor = encodeFloor(ROWS, true);

    return {
      serve_update_records: ROWS,
      serve_update_records_per_s: Math.round(ROWS / raw.seconds),
      serve_floor_protobufjs_encode_records_per_s: Math.round(ROWS / floor),
      serve_update_vs_protobufjs_floor: Math.round((floor / raw.seconds) * 100) / 100,
      serve_floor_proto_loader_serialize_records_per_s: Math.round(ROWS / genericFloor),
      serve_update_vs_proto_loader_floor: Math.round((genericFloor / raw.seconds) * 100) / 100,
      serve_update_decoding_client_records_per_s: Math.round(ROWS / decoded.seconds),
      serve_debug_duckdb_records_per_s: Math.round(ROWS / debug),
      serve_update_over_debug_ratio: Math.round((debug / raw.seconds) * 100) / 100,
      serve_update_decoding_over_debug_ratio: Math.round((debug / decoded.seconds) * 100) / 100,
      serve_peak_rss_mb_100k: smallRss,
      serve_peak_rss_mb_1m: rss,
      serve_peak_rss_1m_over_100k_ratio: Math.round((rss / smallRss) * 100) / 100,
      serve_capped_heap_peak_rss_mb_1m: cappedShort.peak,
      serve_capped_heap_peak_rss_mb_3m: cappedLong.peak,
      serve_capped_heap_peak_rss_3m_over_1m_ratio: Math.round((cappedLong.peak / cappedShort.peak) * 100) / 100,
      serve_capped_heap_update_records_per_s_3m: cappedLong.perSecond,
      serve_start_to_listening_ms: Math.round(median(starts)),
    };
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
