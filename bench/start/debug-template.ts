/**
 * What a connector author waits for on every edit-run cycle: `connector-auth debug` of the rest-api
 * template (`connector-auth init --template rest-api`, unchanged) against a local API serving 100
 * rows, end to end (process start to exit: load, probe, one page, 100 upserts, checkpoint, the
 * warehouse closed). Measured against what any Node CLI that makes one request pays in the same
 * run: `node -e 0` plus one round trip to the same API, and the engine's floor: the same job written by
 * hand with only Node and DuckDB (bench/start/hand-written-sync.mjs: probe, page, one INSERT OR REPLACE,
 * the state, a checkpoint), which no framework around DuckDB can beat.
 *
 * - warm: the project as an author re-runs it (warehouse and state from the run before; the
 *   compiled connector in the cache). Median of several runs, alternated with `node -e 0`.
 * - after an edit: the connector file changed, so it is compiled again (the cache misses once).
 * - peak RSS: separate runs with bench/start/report-max-rss.mjs preloaded (it writes the process's own
 *   maxRSS at exit), so the timed runs carry no extra module.
 * - without NODE_EXTRA_CA_CERTS, when the environment sets it: Node 20 then parses the system's and
 *   the file's CA certificates before any JavaScript runs (~35 ms of every start here, `node -e 0`
 *   included), which makes every ratio over `node -e 0` smaller than on a machine without it. The
 *   same three commands are timed again without the variable, so both are printed.
 *
 *   npx tsx bench/start/debug-template.ts    prints the figures as JSON
 */
import { get } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BIN, TOKEN, median, round1, serveItems, timed } from './template-process.js';

const REPORT_RSS = fileURLToPath(new URL('./report-max-rss.mjs', import.meta.url));
const HAND_WRITTEN = fileURLToPath(new URL('./hand-written-sync.mjs', import.meta.url));
const ROWS = 100;
const ROUNDS = 9;

/** One GET on a new connection, as the probe makes it: median of several. */
async function roundTrip(url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      get(`${url}/health`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
        res.resume().once('end', resolve);
      }).once('error', reject);
    });
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function run(): Promise<Record<string, number>> {
  const { server, url } = await serveItems(ROWS);
  const root = await mkdtemp(join(tmpdir(), 'bench-debug-template-'));
  // A cache of its own: the first run compiles, as it would after an edit.
  const env = { ...process.env, CONNECTOR_AUTH_CACHE_DIR: join(root, 'cache'), NO_COLOR: '1' };
  try {
    const project = join(root, 'project');
    await timed([BIN, 'init', project, '--template', 'rest-api'], env);
    await writeFile(
      join(project, 'configuration.json'),
      JSON.stringify({ auth_method: 'bearer', token: TOKEN, base_url: url, probe_path: 'health', items_path: 'items' }),
    );
    const debug = [BIN, 'debug', project];
    const byHand = [HAND_WRITTEN, url, TOKEN, join(root, 'by-hand.db'), join(root, 'by-hand-state.json')];
    const first = await timed(debug, env); // compiles the connector, creates the warehouse
    await timed(byHand, env); // creates its table: both are warm from here on
    /** `node -e 0`, the job by hand and `debug`, alternated, ROUNDS times each under `runEnv`. */
    const alternated = async (runEnv: NodeJS.ProcessEnv) => {
      const times = { node: [] as number[], floor: [] as number[], warm: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        times.node.push(await timed(['-e', '0'], runEnv));
        times.floor.push(await timed(byHand, runEnv));
        times.warm.push(await timed(debug, runEnv));
      }
      return times;
    };
    const { node, floor, warm } = await alternated(env);
    const rtt = await roundTrip(url);

    // The same three without NODE_EXTRA_CA_CERTS (only when it is set): each start then skips it.
    const withoutCa: Record<string, number> = {};
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const plain: NodeJS.ProcessEnv = { ...env };
      delete plain.NODE_EXTRA_CA_CERTS;
      const times = await alternated(plain);
      const [nodeMs, floorMs, warmMs] = [median(times.node), median(times.floor), median(times.warm)];
      Object.assign(withoutCa, {
        debug_template_without_extra_ca_warm_ms: Math.round(warmMs),
        debug_template_without_extra_ca_node_e0_ms: Math.round(nodeMs),
        debug_template_without_extra_ca_over_node_rtt_ratio: round1(warmMs / (nodeMs + rtt)),
        debug_template_without_extra_ca_by_hand_ms: Math.round(floorMs),
        debug_template_without_extra_ca_by_hand_over_node_rtt_ratio: round1(floorMs / (nodeMs + rtt)),
      });
    }

    // After an edit: the same file with one more comment line compiles once more.
    const edited: number[] = [];
    const source = await readFile(join(project, 'connector.ts'), 'utf8');
    for (let i = 0; i < 3; i++) {
      await writeFile(join(project, 'connector.ts'), `${source}\n// edit ${i}\n`);
      edited.push(await timed(debug, env));
    }

    const peakMib = async (args: string[], file: string) => {
      await timed(['--import', REPORT_RSS, ...args], { ...env, REPORT_MAX_RSS_FILE: file });
      return Number(await readFile(file, 'utf8')) / 1024;
    };
    const rss: number[] = [];
    const floorRss: number[] = [];
    for (let i = 0; i < 3; i++) {
      rss.push(await peakMib(debug, join(root, `rss-${i}.txt`)));
      floorRss.push(await peakMib(byHand, join(root, `rss-by-hand-${i}.txt`)));
    }

    const nodeMs = median(node);
    const warmMs = median(warm);
    const floorMs = median(floor);
    return {
      debug_template_rows: ROWS,
      debug_template_warm_ms: Math.round(warmMs),
      debug_template_warm_min_ms: Math.round(Math.min(...warm)),
      debug_template_warm_max_ms: Math.round(Math.max(...warm)),
      debug_template_after_edit_ms: Math.round(median(edited)),
      debug_template_first_run_ms: Math.round(first),
      debug_template_node_e0_ms: Math.round(nodeMs),
      debug_template_round_trip_ms: round1(rtt),
      debug_template_over_node_rtt_ratio: round1(warmMs / (nodeMs + rtt)),
      debug_template_peak_rss_mib: round1(median(rss)),
      debug_template_by_hand_ms: Math.round(floorMs),
      debug_template_by_hand_over_node_rtt_ratio: round1(floorMs / (nodeMs + rtt)),
      debug_template_over_by_hand_ratio: Math.round((warmMs / floorMs) * 100) / 100,
      debug_template_by_hand_peak_rss_mib: round1(median(floorRss)),
      ...withoutCa,
    };
  } finally {
    server.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
