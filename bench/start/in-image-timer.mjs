// Runs inside the connector's image (`podman run --entrypoint node … /bench/in-image-timer.mjs`):
// each command Airbyte or the partner SDK starts, timed from spawn to its end (to "listening on" for
// serve), alternated with `node -e 0` in the same container, so the container's own start is in
// neither. Beside the wall clock, each process's own CPU time (user + system) to the same point,
// which a loaded machine disturbs far less: a preload prints it. Prints the medians as JSON. Plain
// Node: the image has nothing else.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CONFIG = '/bench/source_config.json';
const COMMANDS = {
  node_e0: ['node', ['-e', '0']],
  spec: ['connector-auth-image', ['spec']],
  check: ['connector-auth-image', ['check', '--config', CONFIG]],
  discover: ['connector-auth-image', ['discover', '--config', CONFIG]],
  serve_ready: ['connector-auth-image', ['serve', '/connector', '--port', '0', '--host', '127.0.0.1']],
};

// Loaded with --require by every command, node -e 0 too: the process's CPU time when serve's
// "listening on" line is written, or at exit.
const PRELOAD = '/tmp/cpu-at-end.cjs';
writeFileSync(
  PRELOAD,
  `let done = false;
const report = () => {
  if (done) return;
  done = true;
  const { user, system } = process.cpuUsage();
  process.stderr.write('\\nCPU_MS ' + (user + system) / 1000 + '\\n');
};
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  if (String(chunk).includes('listening on')) report();
  return write.call(this, chunk, ...rest);
};
process.on('exit', report);
`,
);
const ENV = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PRELOAD}`.trim() };
const CPU = /CPU_MS ([\d.]+)/;

function timed(name) {
  const [command, args] = COMMANDS[name];
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: ENV });
  let output = '';
  let wall;
  return new Promise((resolve, reject) => {
    const watch = (chunk) => {
      output += chunk;
      if (name !== 'serve_ready') return;
      if (wall === undefined && output.includes('listening on')) wall = performance.now() - started;
      const cpu = CPU.exec(output);
      if (wall !== undefined && cpu) {
        resolve({ wall, cpu: Number(cpu[1]) });
        child.kill('SIGTERM');
      }
    };
    child.stdout.setEncoding('utf8').on('data', watch);
    child.stderr.setEncoding('utf8').on('data', watch);
    child.once('error', reject);
    child.once('close', (code) => {
      if (name === 'serve_ready') return;
      if (code !== 0) reject(new Error(`${name} exited ${code}: ${output.slice(-400)}`));
      else resolve({ wall: performance.now() - started, cpu: Number(CPU.exec(output)?.[1] ?? NaN) });
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const times = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const name of Object.keys(COMMANDS)) times[name].push(await timed(name));
const medians = (key) =>
  Object.fromEntries(Object.entries(times).map(([name, runs]) => [name, median(runs.map((run) => run[key]))]));
console.log(JSON.stringify({ ...medians('wall'), cpu: medians('cpu') }));
