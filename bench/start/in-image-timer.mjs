// Runs inside the connector's image (`podman run --entrypoint node … /bench/in-image-timer.mjs`):
// each command Airbyte or the partner SDK starts, timed from spawn to its end (to "listening on" for
// serve), alternated with `node -e 0` in the same container, so the container's own start is in
// neither. Prints the medians as JSON. Plain Node: the image has nothing else.
import { spawn } from 'node:child_process';

const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CONFIG = '/bench/source_config.json';
const COMMANDS = {
  node_e0: ['node', ['-e', '0']],
  spec: ['connector-auth-image', ['spec']],
  check: ['connector-auth-image', ['check', '--config', CONFIG]],
  discover: ['connector-auth-image', ['discover', '--config', CONFIG]],
  serve_ready: ['connector-auth-image', ['serve', '/connector', '--port', '0', '--host', '127.0.0.1']],
};

function timed(name) {
  const [command, args] = COMMANDS[name];
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const watch = (chunk) => {
      output += chunk;
      if (name === 'serve_ready' && output.includes('listening on')) {
        resolve(performance.now() - started);
        child.kill('SIGTERM');
      }
    };
    child.stdout.setEncoding('utf8').on('data', watch);
    child.stderr.setEncoding('utf8').on('data', watch);
    child.once('error', reject);
    child.once('close', (code) => {
      if (name === 'serve_ready') return;
      if (code !== 0) reject(new Error(`${name} exited ${code}: ${output.slice(-400)}`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const times = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const name of Object.keys(COMMANDS)) times[name].push(await timed(name));
console.log(JSON.stringify(Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, median(ms)]))));
