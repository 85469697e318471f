/**
 * Fivetran's first Update against a `debug` of the same project (issue 43: at most 1.5×). The
 * partner SDK starts the image, waits for `serve`, then calls; the first Update of a new server
 * loads what the calls load (the connector's run, the source's modules) on top of the server's
 * start, which bench/start/image-commands.ts measures.
 *
 * - first Update: `serve` started in a new container of the image `init`'s Dockerfile builds (Node
 *   24, caches as the build left them; host network), and once it listens a gRPC client on this
 *   side (test/hosts/fivetran/support.ts) calls Update with the rest-api template's configuration:
 *   from the call to the stream's end, 100 records and a checkpoint; and with the server's own start
 *   before it (the "(N ms after start)" its "listening on" line gives: the process's clock, without
 *   the container engine's part), what the partner SDK waits from the process's start.
 * - debug: `connector-auth debug` of the same template against the same API, warm (the connector
 *   compiled, the warehouse there), process start to exit: load, probe, the page, DuckDB, the state.
 *   On this side, so on this machine's Node (the image has no DuckDB: a production install).
 *
 * Alternated, ROUNDS of each; medians.
 *
 *   npx tsx bench/start/image-first-update.ts    prints the figures as JSON
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectorClient } from '../../test/hosts/fivetran/support.js';
import { buildImage, scaffoldWithPackages, startContainer } from '../../test/hosts/image/support.js';
import { ensureNodeBaseImage } from '../../test/peers/node-base-image.js';
import { podman, podmanOk } from '../../test/peers/podman.js';
import { BIN, TOKEN, median, round1, serveItems, timed } from './template-process.js';

const TAG = 'localhost/connector-auth-bench-first-update:latest';
const ROWS = 100;
const ROUNDS = 7;

export async function run(): Promise<Record<string, number>> {
  await ensureNodeBaseImage();
  const { server, url } = await serveItems(ROWS);
  const root = await mkdtemp(join(tmpdir(), 'bench-image-first-update-'));
  const env = { ...process.env, CONNECTOR_AUTH_CACHE_DIR: join(root, 'cache'), NO_COLOR: '1' };
  try {
    const build = await buildImage(await scaffoldWithPackages(root, 'image-project', []), TAG);
    if (build.code !== 0) throw new Error(`podman build exited ${build.code}: ${build.stderr.slice(-600)}`);
    const project = join(root, 'project');
    await timed([BIN, 'init', project, '--template', 'rest-api'], env);
    const configuration = { auth_method: 'bearer', token: TOKEN, base_url: url, probe_path: 'health' };
    await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration));
    const debug = [BIN, 'debug', project];
    await timed(debug, env); // compiles the connector, creates the warehouse: warm from here on
    const times = { update: [] as number[], withStart: [] as number[], debug: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const { startMs, updateMs } = await firstUpdate(configuration, round);
      times.update.push(updateMs);
      times.withStart.push(startMs + updateMs);
      times.debug.push(await timed(debug, env));
    }
    const [update, withStart, local] = [median(times.update), median(times.withStart), median(times.debug)];
    return {
      image_first_update_ms: round1(update),
      image_first_update_debug_ms: round1(local),
      image_first_update_over_debug: Math.round((update / local) * 100) / 100,
      image_first_update_with_start_ms: round1(withStart),
      image_first_update_with_start_over_debug: Math.round((withStart / local) * 100) / 100,
    };
  } finally {
    server.close();
    await podmanOk(['rmi', '-f', TAG]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

/** A new container's `serve`, then one Update from this side: the server's start, and the call to the stream's end. */
async function firstUpdate(
  configuration: Record<string, string>,
  round: number,
): Promise<{ startMs: number; updateMs: number }> {
  const name = `bench-first-update-${process.pid}-${round}`;
  const args = ['serve', '/connector', '--port', '0', '--host', '127.0.0.1'];
  const container = startContainer(name, ['--rm', '--entrypoint', 'connector-auth-image'], TAG, args);
  try {
    await container.until(/listening on 127\.0\.0\.1:\d+/, 60_000);
    const line = /listening on 127\.0\.0\.1:(\d+).*\((\d+) ms after start\)/.exec(container.stdout())!;
    const [port, startMs] = [Number(line[1]), Number(line[2])];
    const client = connectorClient(port);
    const started = performance.now();
    const result = await client.update({ configuration });
    const updateMs = performance.now() - started;
    client.close();
    if (result.error || result.records.length !== ROWS || result.checkpoints.length === 0)
      throw new Error(`the Update sent ${result.records.length} records: ${result.error?.message ?? 'no error'}`);
    return { startMs, updateMs };
  } finally {
    await podman(['rm', '-f', name]);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
