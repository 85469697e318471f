/**
 * `npm run bench`: every benchmark module in this folder, one after another (the machine has two
 * cores; running them side by side would measure contention), merged into one JSON object. Each
 * figure comes with a naive baseline measured in the same run, so the ratios hold on a noisy machine.
 * `npm run bench -- redaction startup` runs only the named ones.
 *
 * Each module runs in a process of its own (`node --import tsx bench/<name>.ts`, which prints its
 * figures as JSON): a benchmark must not measure the heap, compiled code and sockets the one before it
 * left behind. In one shared process, after the warehouse's million rows and the redaction texts, the
 * paging client made 1.12× the bare baseline of its own run; in a process of its own, 1.21–1.28×.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ALL = [
  'redaction',
  'startup',
  'debug-template',
  'image-warm-start',
  'warehouse-upserts',
  'token-cache',
  'mtls-handshakes',
  'paging',
  'airbyte-read',
  'fivetran-serve',
  'kerberos-verdict',
  'wrong-credential',
];

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length ? chosen : ALL;
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
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
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
