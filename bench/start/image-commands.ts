/**
 * Airbyte starts a new container for every command, and the partner SDK starts the image once and
 * waits for its server: their start is paid on every call. Measured in the image `init`'s Dockerfile
 * builds (Node 24, its caches as the build left them), on the test suite's stand-in for the Node base
 * image (test/peers/node-base-image.ts): `spec`, `check` and `discover` of the rest-api template to
 * their end and `serve` to its "listening on" line, each against `node -e 0` alternated in the same
 * container (bench/start/in-image-timer.mjs), so the container's own start is in neither; wall clock,
 * and each process's own CPU time (`_cpu_` figures), which the machine's load disturbs far less.
 *
 *   npx tsx bench/start/image-commands.ts    prints the figures as JSON
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage, scaffoldWithPackages } from '../../test/hosts/image/support.js';
import { ensureNodeBaseImage } from '../../test/peers/node-base-image.js';
import { podmanOk } from '../../test/peers/podman.js';
import { TOKEN, round1, serveItems } from './template-process.js';

const TAG = 'localhost/connector-auth-bench-image:latest';
const TIMER = fileURLToPath(new URL('./in-image-timer.mjs', import.meta.url));

export async function run(): Promise<Record<string, number>> {
  await ensureNodeBaseImage();
  const { server, url } = await serveItems(100);
  const root = await mkdtemp(join(tmpdir(), 'bench-image-commands-'));
  try {
    const project = await scaffoldWithPackages(root, 'project', []);
    const build = await buildImage(project, TAG);
    if (build.code !== 0) throw new Error(`podman build exited ${build.code}: ${build.stderr.slice(-600)}`);
    const bench = join(root, 'bench');
    await mkdir(bench);
    await writeFile(
      join(bench, 'source_config.json'),
      JSON.stringify({ auth_method: { auth_method: 'bearer', token: TOKEN }, base_url: url, probe_path: 'health' }),
    );
    await copyFile(TIMER, join(bench, 'in-image-timer.mjs'));
    const timer = ['run', '--rm', '-v', `${bench}:/bench:ro`, '--entrypoint', 'node', TAG, '/bench/in-image-timer.mjs'];
    const out = await podmanOk(timer);
    const { cpu, ...ms } = JSON.parse(out.trim().split('\n').at(-1)!) as Medians & { cpu: Medians };
    return { ...figuresOf(ms, ''), ...figuresOf(cpu, '_cpu') };
  } finally {
    server.close();
    await podmanOk(['rmi', '-f', TAG]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

type Medians = Record<string, number>;

/** Each command's median and its ratio to `node -e 0`'s: wall clock (`kind` ''), or the process's CPU time ('_cpu'). */
function figuresOf(ms: Medians, kind: string): Record<string, number> {
  const base = ms.node_e0!;
  const figures: Record<string, number> = { [`image_node_e0${kind}_ms`]: round1(base) };
  for (const name of ['spec', 'check', 'discover', 'serve_ready']) {
    const label = name === 'serve_ready' ? 'image_serve_ready' : `image_airbyte_${name}`;
    figures[`${label}${kind}_ms`] = round1(ms[name]!);
    figures[`${label}${kind}_over_node`] = Math.round((ms[name]! / base) * 100) / 100;
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
