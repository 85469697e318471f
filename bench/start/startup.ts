/**
 * Wall time of `connector-auth --help` and of `debug` on a trivial connector, against `node -e 0`
 * (the floor any Node CLI pays), median of several runs each. Also checks which heavy modules
 * `--help` loads: the answer must be none.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));
const RECORD_LOADS = fileURLToPath(new URL('./record-loads.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The modules a file of the bundled start path (dist/bundle/, scripts/bundle.js) holds, read from
 * its source map, as the URLs the per-file build would have loaded: dist/<path>.js for our own
 * sources, the package's file for a bundled package (zod). So a check of what a command loads
 * sees through the bundle.
 */
async function bundledModules(url: string): Promise<string[]> {
  if (!url.startsWith('file:') || !url.includes('/dist/bundle/')) return [];
  const file = fileURLToPath(url);
  let sources: string[];
  try {
    sources = (JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
  } catch {
    return [];
  }
  return sources.map((source) => {
    const path = resolve(dirname(file), source);
    const own = relative(join(ROOT, 'src'), path);
    return own.startsWith('..')
      ? pathToFileURL(path).href
      : pathToFileURL(join(ROOT, 'dist', own.replace(/\.ts$/, '.js'))).href;
  });
}

function median(args: string[], runs: number, env: NodeJS.ProcessEnv = process.env): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(performance.now() - start);
    if (result.status !== 0 && !(args.includes('--help') && result.status === 0)) {
      if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    }
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}

/**
 * Modules a command loads, recorded by a resolve hook and at exit (record-loads.mjs), and as Node's
 * ES loader translates them (NODE_DEBUG=esm): an ES module that `require()` loads (the connector's
 * bundle on Node 20, and what it imports) passes no resolve hook. With those inside the bundle's files.
 */
export async function loadedModules(args: string[], cwd?: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'loads-'));
  const log = join(dir, 'loads.txt');
  await writeFile(log, '');
  const run = spawnSync(process.execPath, ['--import', RECORD_LOADS, BIN, ...args], {
    env: { ...process.env, ...env, RECORD_LOADS_FILE: log, NODE_DEBUG: 'esm' },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    cwd,
  });
  const translated = [...run.stderr.matchAll(/^ESM \d+: Translating \w+ (\S+)/gm)].map((match) => match[1]!);
  const urls = [...(await readFile(log, 'utf8')).split('\n').filter(Boolean), ...translated];
  await rm(dir, { recursive: true, force: true });
  const inside = await Promise.all([...new Set(urls)].map(bundledModules));
  return [...urls, ...inside.flat()];
}

/** The heavy packages; zod also as the bundle's copy of it (scripts/bundle.js). */
export const HEAVY =
  /@aws-sdk|\/pg\/|ssh2|@duckdb|node-forge|undici|\/zod\/|\/bundle\/zod\.c?js$|@grpc|protobufjs|\/bundle\/grpc\.cjs$|node_modules\/kerberos\/|basic-ftp|mysql2/;

export async function run(): Promise<Record<string, number>> {
  const node = median(['-e', '0'], 9);
  const help = median([BIN, '--help'], 9);

  const project = await mkdtemp(join(tmpdir(), 'bench-debug-'));
  await writeFile(
    join(project, 'connector.ts'),
    `import { defineConnector, defineSource } from 'connector-auth';
const local = defineSource({ name: 'none', summary: 'no source', keys: (await import('connector-auth')).z.object({}), needs: ['httpRequest'],
  async connect() { return { async probe() { return { target: 'nothing', outcome: 'ok', elapsedMs: 0 }; }, async close() {} }; } });
export default defineConnector({ source: local, async update({ op }) { await op.upsert('t', { id: 1 }); await op.checkpoint({ done: true }); } });
`,
  );
  await writeFile(
    join(project, 'configuration.json'),
    JSON.stringify({ auth_method: 'bearer', token: 'bench-token-123' }),
  );
  const debug = median([BIN, 'debug', project], 5);
  await rm(project, { recursive: true, force: true });

  const heavy = (await loadedModules(['--help'])).filter((url) => HEAVY.test(url));
  return {
    startup_node_e0_ms: node,
    startup_help_ms: help,
    startup_help_over_node_ms: help - node,
    startup_help_heavy_modules_loaded: heavy.length,
    startup_debug_trivial_ms: debug,
    startup_debug_over_node_ratio: Math.round((debug / node) * 10) / 10,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
