/**
 * Airbyte runs every command of a connector (spec, check, discover, read) in a new container. The
 * image every template ships (templates/Dockerfile) therefore carries its caches warm: connector.ts
 * compiled (CONNECTOR_AUTH_CACHE_DIR) and, on Node 22+, Node's compiled modules (NODE_COMPILE_CACHE),
 * both filled at build by one `airbyte spec`. Measured here as the image would run it, without a
 * container engine: `airbyte check` of the rest-api template against a local API, each run with
 * caches as a new container from an image without the warm-up has them (empty directories), against
 * the caches one `airbyte spec` left, alternated. On Node 20 only the connector's cache applies.
 *
 *   npx tsx bench/start/image-warm-start.ts    prints the figures as JSON
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BIN, TOKEN, median, round1, serveItems, timed } from './template-process.js';

const REPORT_RSS = fileURLToPath(new URL('./report-max-rss.mjs', import.meta.url));
const ROUNDS = 9;

export async function run(): Promise<Record<string, number>> {
  const { server, url } = await serveItems(100);
  const root = await mkdtemp(join(tmpdir(), 'bench-image-warm-start-'));
  const caches = (dir: string) => ({
    ...process.env,
    NO_COLOR: '1',
    CONNECTOR_AUTH_CACHE_DIR: join(root, dir, 'connector-auth'),
    NODE_COMPILE_CACHE: join(root, dir, 'node-compile-cache'),
  });
  try {
    const project = join(root, 'project');
    await timed([BIN, 'init', project, '--template', 'rest-api'], caches('init'));
    const config = join(root, 'source_config.json');
    await writeFile(
      config,
      JSON.stringify({ auth_method: { auth_method: 'bearer', token: TOKEN }, base_url: url, probe_path: 'health' }),
    );
    const check = [BIN, 'airbyte', 'check', project, '--config', config];
    const warm = caches('image');
    await timed([BIN, 'airbyte', 'spec', project], warm); // the Dockerfile's RUN line

    const cold: number[] = [];
    const warmed: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      cold.push(await timed(check, caches(`container-${i}`)));
      warmed.push(await timed(check, warm));
    }
    const peak = async (env: NodeJS.ProcessEnv, name: string) => {
      const file = join(root, `rss-${name}.txt`);
      await timed(['--import', REPORT_RSS, ...check], { ...env, REPORT_MAX_RSS_FILE: file });
      return Number(await readFile(file, 'utf8')) / 1024;
    };
    const coldMs = median(cold);
    const warmMs = median(warmed);
    return {
      image_check_node_major: Number(process.versions.node.split('.')[0]),
      image_check_cold_caches_ms: Math.round(coldMs),
      image_check_warm_caches_ms: Math.round(warmMs),
      image_check_warm_over_cold_ratio: Math.round((warmMs / coldMs) * 100) / 100,
      image_check_cold_caches_peak_rss_mib: round1(await peak(caches('container-rss'), 'cold')),
      image_check_warm_caches_peak_rss_mib: round1(await peak(warm, 'warm')),
    };
  } finally {
    server.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
