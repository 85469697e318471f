/**
 * Paging throughput, end to end over loopback HTTP: the emulator (in a child process, as a server is
 * a separate process in real life) serves 100,000 connectors of one group; the PipelineClient lists
 * them all through the REST source (Basic auth, undici keep-alive, JSON parse, zod validation of every
 * record). Measured at limit 1000 and at the default limit of 100.
 *
 * Memory: the client holds one page at a time, so heap growth while listing must not depend on the
 * total. Shown by listing 10,000 and 100,000 records and comparing the peak heap growth of each.
 *
 * Wall-clock rates depend on what else the machine runs, so the figures also carry the client's CPU
 * time per record (the server is another process) and the 1-minute load average, and the client's two per-record costs
 * measured alone on one page: JSON.parse and zod validation.
 *
 *   npx tsx bench/paging.ts        prints the figures as JSON
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadavg } from 'node:os';

const TOTAL = 100_000;
const SMALL = 10_000;
const GROUP = 'grp_bench';

interface ServerInfo {
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** Server side (the child process): an emulator seeded with `TOTAL` connectors in one group and `SMALL` in another. */
async function serve(): Promise<void> {
  const { startEmulator, defaultEmulatorData } = await import('../src/emulator/index.js');
  const template = defaultEmulatorData().connectors!.find((c) => !c.connect_card)!;
  const emulator = await startEmulator({
    data: { groups: [{ id: GROUP, name: 'Bench', created_at: '2024-01-01T00:00:00.000Z' }, { id: `${GROUP}_small`, name: 'Bench small', created_at: '2024-01-01T00:00:00.000Z' }] },
  });
  const add = (group: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `conn_${String(i).padStart(7, '0')}`;
      // Ids sorted as generated: each insert is an append.
      emulator.store.addConnector({ ...structuredClone(template), id: `${group}_${id}`, group_id: group, schema: `schema_${i}` });
    }
  };
  add(GROUP, TOTAL);
  add(`${GROUP}_small`, SMALL);
  process.send!({ url: emulator.pipelineUrl, apiKey: emulator.credentials.apiKey, apiSecret: emulator.credentials.apiSecret } satisfies ServerInfo);
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
  const { createPipelineClient } = await import('../src/clients/pipeline-api.js');
  const gc = collectGarbage();
  // The server runs this same file under tsx in its own process, so process.cpuUsage() here is the client's alone.
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', import.meta.resolve('tsx')], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    server.once('message', (m) => resolve(m as ServerInfo));
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`the emulator process exited (${code})`)));
  });
  const client = await createPipelineClient({ baseUrl: info.url, apiKey: info.apiKey, apiSecret: info.apiSecret, timeoutSeconds: 60 });

  const list = async (group: string, limit: number) => {
    gc();
    const before = process.memoryUsage();
    let peakHeap = before.heapUsed;
    let peakRss = before.rss;
    let count = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for await (const connector of client.connectors(group, { limit })) {
      if (connector.group_id !== group) throw new Error('a record of another group');
      if (++count % 1000 === 0) {
        const m = process.memoryUsage();
        peakHeap = Math.max(peakHeap, m.heapUsed);
        peakRss = Math.max(peakRss, m.rss);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMicrosPerRecord = (cpu.user + cpu.system) / count;
    return { count, perSecond: Math.round(count / seconds), seconds, cpuMicrosPerRecord, heapGrowthMb: (peakHeap - before.heapUsed) / 2 ** 20, rssGrowthMb: (peakRss - before.rss) / 2 ** 20 };
  };

  try {
    await list(`${GROUP}_small`, 1000); // warm-up: JIT, connection pool
    const small = await list(`${GROUP}_small`, 1000);
    const big = await list(GROUP, 1000);
    const byDefault = await list(GROUP, 100);
    if (big.count !== TOTAL || byDefault.count !== TOTAL || small.count !== SMALL) throw new Error('a listing missed records');
    const costs = await perRecordCosts(info);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      paging_records: TOTAL,
      paging_records_per_second_limit_1000: big.perSecond,
      paging_records_per_second_limit_100: byDefault.perSecond,
      paging_ratio_limit_1000_to_100: round(big.perSecond / byDefault.perSecond),
      paging_seconds_limit_1000: round(big.seconds),
      paging_seconds_limit_100: round(byDefault.seconds),
      paging_heap_peak_growth_mb_10k_records: round(small.heapGrowthMb),
      paging_heap_peak_growth_mb_100k_records: round(big.heapGrowthMb),
      paging_rss_peak_growth_mb_100k_records: round(big.rssGrowthMb),
      paging_heap_peak_growth_mb_100k_records_limit_100: round(byDefault.heapGrowthMb),
      paging_client_cpu_us_per_record_limit_1000: round(big.cpuMicrosPerRecord),
      paging_client_cpu_us_per_record_limit_100: round(byDefault.cpuMicrosPerRecord),
      paging_client_json_parse_us_per_record: round(costs.parse),
      paging_client_zod_validate_us_per_record: round(costs.validate),
      paging_load_average_1m: round(loadavg()[0]!),
    };
  } finally {
    await client.close();
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.send('stop');
    await exited;
  }
}

/** The client's per-record work measured alone on one page of 1000: parse and validation. */
async function perRecordCosts(info: ServerInfo): Promise<{ parse: number; validate: number }> {
  const { connectorSchema } = await import('../src/clients/pipeline-api.js');
  const response = await fetch(`${info.url}/v1/groups/${GROUP}/connectors?limit=1000`, {
    headers: { authorization: `Basic ${Buffer.from(`${info.apiKey}:${info.apiSecret}`).toString('base64')}`, accept: 'application/json' },
  });
  const text = await response.text();
  const best = (fn: () => void) => {
    let min = Infinity;
    for (let round = 0; round < 15; round++) {
      const started = performance.now();
      fn();
      min = Math.min(min, performance.now() - started);
    }
    return (min * 1000) / 1000; // ms per 1000 records → µs per record
  };
  const items = (JSON.parse(text) as { data: { items: unknown[] } }).data.items;
  return {
    parse: best(() => JSON.parse(text)),
    validate: best(() => {
      for (const item of items) connectorSchema.parse(item);
    }),
  };
}

if (process.argv.includes('--serve')) {
  await serve();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
