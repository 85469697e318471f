import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, leakForms } from '../../helpers/cli.js';
import { start, type HttpApiPeer } from '../../peers/http-api.js';
import { parseDockerfile } from './dockerfile.js';
import { configuredCatalog, lineProblems } from './support.js';

/**
 * The production image, without a container engine (none runs here): the Dockerfile every
 * template ships is read as a builder would, the project copied into a stand-in for the image's
 * WORKDIR as its `COPY .` would copy it (minus .dockerignore), and the command line Airbyte runs in
 * the image — `$AIRBYTE_ENTRYPOINT spec`, `… check --config source_config.json` — run from another
 * directory (Airbyte's working directory is its config folder), with the image's environment.
 * `connector-auth` there is the package's own bin, as `npm install --global` would link it.
 */

const TOKEN = 'Image-T0ken/+rest?&x=1';
const PACKAGE = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const TEMPLATES = new URL('../../../templates/', import.meta.url);
let peer: HttpApiPeer;
let root: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 5 }),
    mkdtemp(join(tmpdir(), 'connector-auth-image-')),
  ]);
});
afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('the Dockerfile of every template', () => {
  it('is one file: Node 24, a non-root user, connector-auth from the registry at the version init ran with, port 50051, both entrypoints', async () => {
    // templates/Dockerfile is the only one; init writes it into every project, whatever the template.
    const names = (await readdir(TEMPLATES, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect(await readdir(new URL(`${name}/`, TEMPLATES))).not.toContain('Dockerfile');
    const shared = await readFile(new URL('Dockerfile', TEMPLATES), 'utf8');
    const written = await Promise.all(
      names.map(async (name) =>
        readFile(join(await initTemplate(root, `scaffolded-${name}`, name), 'Dockerfile'), 'utf8'),
      ),
    );
    expect(new Set(written)).toEqual(new Set([shared.replaceAll('__CONNECTOR_AUTH_VERSION__', PACKAGE.version)]));

    const dir = join(root, 'scaffolded-rest-api');
    const file = parseDockerfile(await readFile(join(dir, 'Dockerfile'), 'utf8'));
    expect(file.from).toMatch(/^node:24-alpine$/);
    expect(file.args.CONNECTOR_AUTH_VERSION).toBe(PACKAGE.version);
    expect(file.run.join('\n')).toContain(
      'npm install --global --no-audit --no-fund "connector-auth@${CONNECTOR_AUTH_VERSION}"',
    );
    expect(file.user).toBe('node');
    // Both caches in the home of the user that runs the commands, warmed at build by a spec.
    expect(file.env).toMatchObject({
      CONNECTOR_AUTH_CACHE_DIR: '/home/node/.cache/connector-auth',
      NODE_COMPILE_CACHE: '/home/node/.cache/node-compile-cache',
    });
    expect(file.run).toContain('connector-auth airbyte spec > /dev/null');
    expect(file.expose).toEqual(['50051']);
    expect(file.entrypoint).toEqual(['connector-auth']);
    // The gRPC host serves the image's project on the exposed port.
    expect(file.cmd).toEqual(['serve', file.workdir, '--port', file.expose[0]]);
    // Airbyte's acceptance tests (test_image_environment_variables): AIRBYTE_ENTRYPOINT is the
    // ENTRYPOINT, space-joined; `connector-auth spec|check|discover|read` are the airbyte commands.
    expect(file.env).toMatchObject({
      AIRBYTE_ENTRYPOINT: file.entrypoint.join(' '),
      CONNECTOR_AUTH_PROJECT: file.workdir,
    });
    const ignored = (await readFile(join(dir, '.dockerignore'), 'utf8')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['configuration.json', 'files/', '*.recovery.json']));
  });

  it("Airbyte's command line in the image: spec and check from its config folder, the project found through the image's environment", async () => {
    const dir = await initTemplate(root, 'image', 'rest-api');
    const file = parseDockerfile(await readFile(join(dir, 'Dockerfile'), 'utf8'));
    // COPY . /connector, less .dockerignore.
    const image = join(root, 'image-root', file.workdir);
    const ignored = (await readFile(join(dir, '.dockerignore'), 'utf8'))
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    await cp(dir, image, {
      recursive: true,
      filter: (source) => !ignored.some((pattern) => source.endsWith(`/${pattern.replace(/\/$/, '')}`)),
    });
    expect((await readdir(image)).sort()).toEqual([
      '.dockerignore',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'connector.ts',
      'package.json',
      'tsconfig.json',
    ]);

    const configFolder = join(root, 'config');
    await mkdir(configFolder, { recursive: true });
    await writeFile(
      join(configFolder, 'source_config.json'),
      JSON.stringify({
        auth_method: { auth_method: 'bearer', token: TOKEN },
        base_url: peer.url,
        probe_path: 'health',
      }),
    );
    await writeFile(join(configFolder, 'source_catalog.json'), JSON.stringify(configuredCatalog([{ name: 'items' }])));
    // The image's paths: its WORKDIR and the home of its user, both under the test's stand-in root.
    const home = join(root, 'image-home');
    const inImage = (value: string) =>
      value === file.workdir
        ? image
        : value.startsWith('/home/node/')
          ? join(home, value.slice('/home/node/'.length))
          : value;
    const env = Object.fromEntries(Object.entries(file.env).map(([k, v]) => [k, inImage(v)]));
    const [program, ...prefix] = env.AIRBYTE_ENTRYPOINT!.split(' ');
    expect(program).toBe('connector-auth');
    expect(prefix).toEqual([]);

    // The build's warm-up (its RUN line after npm install), as the image's user would run it.
    const warmUp = file.run.find((line) => line.startsWith('connector-auth '))!;
    const [, ...warmArgs] = warmUp.replace(/\s*>\s*\/dev\/null$/, '').split(' ');
    expect((await cli(warmArgs, { cwd: image, env })).code).toBe(0);
    const connectorCache = await cacheFiles(env.CONNECTOR_AUTH_CACHE_DIR!);
    expect(connectorCache.size).toBeGreaterThan(0);
    // Node 22.1+ keeps its compile cache there too (bin turns it on); Node 20 has none.
    const nodeModule = (await import('node:module')).default as { enableCompileCache?: unknown };
    if (typeof nodeModule.enableCompileCache === 'function')
      expect((await cacheFiles(env.NODE_COMPILE_CACHE!)).size).toBeGreaterThan(0);

    const spec = await cli([...prefix, 'spec'], { cwd: configFolder, env });
    const check = await cli([...prefix, 'check', '--config', 'source_config.json'], { cwd: configFolder, env });
    const read = await cli([...prefix, 'read', '--config', 'source_config.json', '--catalog', 'source_catalog.json'], {
      cwd: configFolder,
      env,
    });
    for (const run of [spec, check, read]) {
      expect(run.code, run.stderr).toBe(0);
      for (const line of run.stdout.trimEnd().split('\n')) expect(lineProblems(line), line).toEqual([]);
      for (const form of leakForms(TOKEN)) expect(run.stdout + run.stderr).not.toContain(form);
    }
    expect(JSON.parse(spec.stdout.split('\n')[0]!).type).toBe('SPEC');
    expect(check.stdout).toContain('"status":"SUCCEEDED"');
    expect(read.stdout.split('\n').filter((l) => l.startsWith('{"type":"RECORD"'))).toHaveLength(5);
    // Each command found connector.ts compiled in the image: nothing in the cache was written again.
    expect(await cacheFiles(env.CONNECTOR_AUTH_CACHE_DIR!)).toEqual(connectorCache);
  });
});

/** Every file under a cache directory, by path, with the time it was last written. */
async function cacheFiles(dir: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(path, (await stat(path)).mtimeMs);
    }
  return files;
}
