/**
 * Paging throughput, end to end over loopback HTTP: the emulator (in a child process, as a server is
 * a separate process in real life) serves 100,000 connectors of one group; the PipelineClient lists
 * them all through the REST source (Basic auth, undici keep-alive, JSON parse, validation of every
 * record, the connect-card check). Measured at limit 1000 and at the default limit of 100.
 *
 * Timing: the first pass is reported on its own (cold: V8 meets the record shapes, grows its heap,
 * the record check is compiled); after two more warm-up passes come five rounds, each a listing at
 * limit 1000, the bare baseline and a listing at limit 100, back to back. The median round is
 * reported (the best beside it), and ratios are taken within a round: this machine's speed changes
 * by up to half for seconds at a time, and a round's contenders meet the same machine.
 * The bare baseline of the same run fetches the same pages over the same kind of connection and only
 * JSON.parses them, as a plain client would: no validation, no iterator, no prefetch, the body read
 * as one string. The client beats it by asking for page n+1 early and parsing in pieces.
 *
 * Memory: the client holds at most two pages, so what it keeps alive while listing must not depend
 * on the total. Shown by a separate pass that collects garbage every 2,000 records and records the
 * live heap above its start, for 10,000 and for 100,000 records.
 *
 *   npx tsx bench/throughput/paging.ts        prints the figures as JSON
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadavg } from 'node:os';

const TOTAL = 100_000;
const SMALL = 10_000;
/** Rounds measured after the warm-up; the median round is reported. */
const ROUNDS = 5;
const GROUP = 'grp_bench';

interface ServerInfo {
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** Server side (the child process): an emulator seeded with `TOTAL` connectors in one group and `SMALL` in another. */
async function serve(): Promise<void> {
  const { startEmulator, defaultEmulatorData } = await import('../../src/emulator/index.js');
  const template = defaultEmulatorData().connectors!.find((c) => !c.connect_card)!;
  const emulator = await startEmulator({
    data: {
      groups: [
        { id: GROUP, name: 'Bench', created_at: '2024-01-01T00:00:00.000Z' },
        { id: `${GROUP}_small`, name: 'Bench small', created_at: '2024-01-01T00:00:00.000Z' },
      ],
    },
  });
  const add = (group: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `conn_${String(i).padStart(7, '0')}`;
      // Ids sorted as generated: each insert is an append.
      emulator.store.addConnector({
        ...structuredClone(template),
        id: `${group}_${id}`,
        group_id: group,
        schema: `schema_${i}`,
      });
    }
  };
  add(GROUP, TOTAL);
  add(`${GROUP}_small`, SMALL);
  process.send!({
    url: emulator.pipelineUrl,
    apiKey: emulator.credentials.apiKey,
    apiSecret: emulator.credentials.apiSecret,
  } satisfies ServerInfo);
  process.once('message', () => void emulator.stop().then(() => process.exit(0)));
}

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

export async function run(): Promise<Record<string, number>> {
  const { createPipelineClient } = await import('../../src/clients/pipeline-api.js');
  const gc = collectGarbage();
  // The server runs this same file under tsx in its own process, so process.cpuUsage() here is the client's alone.
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    server.once('message', (m) => resolve(m as ServerInfo));
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`the emulator process exited (${code})`)));
  });
  const client = await createPipelineClient({
    baseUrl: info.url,
    apiKey: info.apiKey,
    apiSecret: info.apiSecret,
    timeoutSeconds: 60,
  });

  // No forced collection before a timed listing: two full collections before each pass cost it
  // 0.4–1.8 µs of CPU a record (5.1–6.4 against 4.3–5.0, passes of the same build with and without
  // them, six runs each). No real listing starts right after forced full collections, and the bare
  // baseline never had them. (The live-heap passes below still collect: that is what they measure.)
  const timed = async (group: string, limit: number, expected: number) => {
    let count = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for await (const connector of client.connectors(group, { limit })) {
      if (connector.group_id !== group) throw new Error('a record of another group');
      count++;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    if (count !== expected) throw new Error(`a listing gave ${count} records, not ${expected}`);
    return { perSecond: count / seconds, cpuMicrosPerRecord: (cpu.user + cpu.system) / count };
  };
  /** Live heap above the start while listing, sampled after a full collection every 2,000 records. */
  const liveHeap = async (group: string, expected: number) => {
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    for await (const _ of client.connectors(group, { limit: 1000 })) {
      if (++count % 2000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
    }
    if (count !== expected) throw new Error(`a listing gave ${count} records, not ${expected}`);
    return peak / 2 ** 20;
  };

  try {
    // The first listing in a fresh process, as one CLI call makes it: V8 meets the record shapes and
    // grows its young generation, the record check is compiled. Then two more warm-up passes.
    const cold = await timed(GROUP, 1000, TOTAL);
    for (let i = 0; i < 2; i++) await timed(GROUP, 1000, TOTAL);
    // Rounds of the three contenders back to back: this machine's speed changes for seconds at a
    // time, so each round's contenders meet the same machine, and ratios are taken within a round.
    const rounds: Round[] = [];
    const sample = await samplePage(info);
    for (let r = 0; r < ROUNDS; r++) {
      const hostParse = parseMicrosPerRecord(sample);
      const big = await timed(GROUP, 1000, TOTAL);
      const bare = await bareListing(info, GROUP);
      const byDefault = await timed(GROUP, 100, TOTAL);
      rounds.push({
        big: big.perSecond,
        byDefault: byDefault.perSecond,
        bare: bare.perSecond,
        cpuBig: big.cpuMicrosPerRecord,
        cpuDefault: byDefault.cpuMicrosPerRecord,
        hostParse,
      });
    }
    const liveSmall = await liveHeap(`${GROUP}_small`, SMALL);
    const liveBig = await liveHeap(GROUP, TOTAL);
    const costs = perRecordCosts(sample);
    const round = (n: number) => Math.round(n * 10) / 10;
    const of = (pick: (r: Round) => number) => median(rounds.map(pick));
    return {
      paging_records: TOTAL,
      paging_rounds: ROUNDS,
      paging_records_per_second_limit_1000: Math.round(of((r) => r.big)),
      paging_records_per_second_limit_1000_best: Math.round(Math.max(...rounds.map((r) => r.big))),
      paging_records_per_second_limit_1000_cold: Math.round(cold.perSecond),
      paging_records_per_second_limit_100: Math.round(of((r) => r.byDefault)),
      paging_ratio_limit_1000_to_100: round(of((r) => r.big / r.byDefault)),
      paging_bare_fetch_and_parse_records_per_second: Math.round(of((r) => r.bare)),
      paging_client_share_of_bare_rate: Math.round(100 * of((r) => r.big / r.bare)) / 100,
      paging_live_heap_mb_10k_records: round(liveSmall),
      paging_live_heap_mb_100k_records: round(liveBig),
      // The machine's own speed in each round: JSON.parse of one page, nothing else.
      paging_host_json_parse_us_per_record_fastest_round: round(Math.min(...rounds.map((r) => r.hostParse))),
      paging_host_json_parse_us_per_record_slowest_round: round(Math.max(...rounds.map((r) => r.hostParse))),
      paging_client_cpu_us_per_record_limit_1000: round(of((r) => r.cpuBig)),
      paging_client_cpu_us_per_record_limit_100: round(of((r) => r.cpuDefault)),
      paging_client_json_parse_us_per_record: round(costs.parse),
      paging_client_compiled_check_us_per_record: round(costs.compiled),
      paging_client_zod_parse_us_per_record: round(costs.zod),
      paging_load_average_1m: round(loadavg()[0]!),
    };
  } finally {
    await client.close();
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.send('stop');
    await exited;
  }
}

interface Round {
  big: number;
  byDefault: number;
  bare: number;
  cpuBig: number;
  cpuDefault: number;
  hostParse: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/**
 * The naive baseline: the same pages fetched with undici's request() on one keep-alive connection and only
 * JSON.parsed, each next page asked for as soon as its cursor is parsed. No validation, no iterator.
 */
async function bareListing(info: ServerInfo, group: string): Promise<{ perSecond: number }> {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const authorization = `Basic ${Buffer.from(`${info.apiKey}:${info.apiSecret}`).toString('base64')}`;
  const page = async (cursor?: string) => {
    const url = `${info.url}/v1/groups/${group}/connectors?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await request(url, { headers: { authorization, accept: 'application/json' }, dispatcher: agent });
    return JSON.parse(await response.body.text()) as { data: { items: unknown[]; next_cursor?: string } };
  };
  try {
    let count = 0;
    const started = performance.now();
    for (let body = await page(); ;) {
      count += body.data.items.length;
      if (!body.data.next_cursor) break;
      body = await page(body.data.next_cursor);
    }
    if (count !== TOTAL) throw new Error(`the bare listing gave ${count} records`);
    return { perSecond: count / ((performance.now() - started) / 1000) };
  } finally {
    await agent.close();
  }
}

/** One page of 1000 connectors as the emulator sends it, with the modules that check its records. */
async function samplePage(info: ServerInfo) {
  const { connectorSchema } = await import('../../src/clients/pipeline-api.js');
  const { compile } = await import('../../src/clients/pipeline/record-validator.js');
  const response = await fetch(`${info.url}/v1/groups/${GROUP}/connectors?limit=1000`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${info.apiKey}:${info.apiSecret}`).toString('base64')}`,
      accept: 'application/json',
    },
  });
  return { text: await response.text(), connectorSchema, compile };
}
type SamplePage = Awaited<ReturnType<typeof samplePage>>;

/** JSON.parse of the sample page, the median of 5, in µs per record: how fast the machine is right now. */
function parseMicrosPerRecord({ text }: SamplePage): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    JSON.parse(text);
    times.push(performance.now() - started);
  }
  return median(times); // ms per 1000 records = µs per record
}

/** The client's per-record work measured alone on one page of 1000: parse, the compiled check, zod's parse. */
function perRecordCosts({ text, connectorSchema, compile }: SamplePage): {
  parse: number;
  compiled: number;
  zod: number;
} {
  const best = (fn: (items: unknown[]) => void) => {
    let min = Infinity;
    for (let round = 0; round < 15; round++) {
      // Freshly parsed records each round, as a listing meets them.
      const items = (JSON.parse(text) as { data: { items: unknown[] } }).data.items;
      const started = performance.now();
      fn(items);
      min = Math.min(min, performance.now() - started);
    }
    return (min * 1000) / 1000; // ms per 1000 records → µs per record
  };
  const check = compile(connectorSchema)!;
  return {
    parse: best(() => JSON.parse(text)),
    compiled: best((items) => {
      for (const item of items) if (!check(item)) throw new Error('the compiled check refused a record');
    }),
    zod: best((items) => {
      for (const item of items) connectorSchema.parse(item);
    }),
  };
}

if (process.argv.includes('--serve')) {
  await serve();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
