/**
 * `npm run bench`: every benchmark module in the folders below, one after another (the machine has two
 * cores; running them side by side would measure contention), merged into one JSON object. Each
 * figure comes with a naive baseline measured in the same run, so the ratios hold on a noisy machine.
 * `npm run bench -- redaction startup` runs only the named ones.
 *
 * Each module runs in a process of its own (`node --import tsx bench/<family>/<name>.ts`, which prints its
 * figures as JSON): a benchmark must not measure the heap, compiled code and sockets the one before it
 * left behind. In one shared process, after the warehouse's million rows and the redaction texts, the
 * paging client made 1.12× the bare baseline of its own run; in a process of its own, 1.21–1.28×.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Every benchmark, by name, in the order they run, each in its family's folder: `start/` what a
 * command's start costs (`--help`, `debug`, an image's `airbyte check`), `throughput/` rows and
 * records per second and the memory they take, `credentials/` secrets, tokens, handshakes and the
 * time to a wrong credential's verdict. The helpers beside them there are not benchmarks.
 */
const ALL: Record<string, 'start' | 'throughput' | 'credentials'> = {
  redaction: 'credentials',
  startup: 'start',
  'debug-template': 'start',
  'image-warm-start': 'start',
  'image-commands': 'start',
  'image-first-update': 'start',
  'warehouse-upserts': 'throughput',
  'token-cache': 'credentials',
  'mtls-handshakes': 'credentials',
  paging: 'throughput',
  'airbyte-read': 'throughput',
  'fivetran-serve': 'throughput',
  'kerberos-verdict': 'credentials',
  'wrong-credential': 'credentials',
};

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length ? chosen : Object.keys(ALL);
const figures: Record<string, number | string> = {};
for (const name of names) {
  const started = performance.now();
  try {
    Object.assign(figures, await runAlone(name));
  } catch (error) {
    figures[`${name}_error`] = error instanceof Error ? error.message : String(error);
  }
  process.stderr.write(`bench ${name}: ${Math.round(performance.now() - started)} ms\n`);
}
console.log(JSON.stringify(figures, null, 2));
if (Object.keys(figures).some((k) => k.endsWith('_error'))) process.exitCode = 1;

/** One module in a fresh Node process; its standard output is its figures. */
function runAlone(name: string): Promise<Record<string, number>> {
  const family = Object.hasOwn(ALL, name) ? ALL[name] : undefined;
  if (family === undefined)
    return Promise.reject(new Error(`no benchmark named ${name}: ${Object.keys(ALL).join(', ')}`));
  const file = fileURLToPath(new URL(`./${family}/${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`bench/${name}.ts exited with ${code}`));
      try {
        resolve(JSON.parse(out) as Record<string, number>);
      } catch {
        reject(new Error(`bench/${name}.ts printed no JSON`));
      }
    });
  });
}
