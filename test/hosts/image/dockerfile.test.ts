import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// internals: the image's entry point reads its arguments here (cli/ is the entry point and has no door)
import { imageArguments } from '../../../src/cli/image-entrypoint.js';
import { initTemplate } from '../../helpers/cli.js';

/**
 * What the image is made of, without a container engine (image.test.ts builds and runs it): the one
 * Dockerfile init writes into every project, what its build context leaves out, and the image's
 * entrypoint — which command line each way of starting the image becomes, and SIGTERM ending it.
 */

const TEMPLATES = new URL('../../../templates/', import.meta.url);
const IMAGE_BIN = fileURLToPath(new URL('../../../bin/connector-auth-image.js', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-dockerfile-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the Dockerfile init writes', () => {
  it('is one file for every template, with the project’s name and version for the Airbyte labels', async () => {
    const names = (await readdir(TEMPLATES, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect(await readdir(new URL(`${name}/`, TEMPLATES))).not.toContain('Dockerfile');
    const shared = await readFile(new URL('Dockerfile', TEMPLATES), 'utf8');
    for (const name of names) {
      const dir = await initTemplate(root, `My_${name}`, name);
      const written = await readFile(join(dir, 'Dockerfile'), 'utf8');
      // The package.json name init derives from the directory, and a first version.
      expect(written).toBe(shared.replace('__PROJECT_NAME__', `my_${name}`).replace('__PROJECT_VERSION__', '0.1.0'));
    }
    // Both stages start from the same Node image, pinned by version.
    const froms = [...shared.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms).toHaveLength(2);
    expect(froms[0]).toMatch(/^node:24\.\d+\.\d+-bookworm-slim$/);
    expect(froms[1]).toBe(froms[0]);
  });

  it('.dockerignore keeps credentials and local output out of the build context, and what npm ci needs in', async () => {
    const dir = await initTemplate(root, 'ignored', 'rest-api');
    const ignored = (await readFile(join(dir, '.dockerignore'), 'utf8')).split('\n');
    expect(ignored).toEqual(
      expect.arrayContaining(['configuration.json', 'configuration.local.json', 'files/', '*.recovery.json']),
    );
    for (const needed of ['package.json', 'package-lock.json', 'vendor/', 'vendor', 'connector.ts'])
      expect(ignored).not.toContain(needed);
  });
});

describe('connector-auth-image, the entrypoint', () => {
  const env = { CONNECTOR_AUTH_PROJECT: '/connector' };

  it("sends Airbyte's four commands to `connector-auth airbyte` with the image's project, flags unchanged", () => {
    expect(imageArguments(['spec'], env)).toEqual(['airbyte', 'spec', '/connector']);
    expect(imageArguments(['check', '--config', 'source_config.json'], env)).toEqual([
      'airbyte',
      'check',
      '/connector',
      '--config',
      'source_config.json',
    ]);
    expect(imageArguments(['discover', '--config', 'c.json'], env)).toEqual([
      'airbyte',
      'discover',
      '/connector',
      '--config',
      'c.json',
    ]);
    expect(imageArguments(['read', '--config', 'c.json', '--catalog', 'k.json', '--state', 's.json'], env)).toEqual([
      'airbyte',
      'read',
      '/connector',
      '--config',
      'c.json',
      '--catalog',
      'k.json',
      '--state',
      's.json',
    ]);
  });

  it('with no arguments serves the partner SDK on 50051, IPv4 and IPv6; anything else is the CLI; no project variable means the working directory', () => {
    expect(imageArguments([], env)).toEqual(['serve', '/connector', '--port', '50051', '--host', '::']);
    expect(imageArguments(['validate', '--configuration', 'c.json'], env)).toEqual([
      'validate',
      '--configuration',
      'c.json',
    ]);
    expect(imageArguments(['--help'], env)).toEqual(['--help']);
    expect(imageArguments(['spec'], {})).toEqual(['airbyte', 'spec', '.']);
  });

  it('ends on SIGTERM with exit 143 when the command has no handler of its own (in a container it is PID 1, which has no default action)', async () => {
    // A source that never answers keeps `check` waiting on its probe.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    const connected = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const project = await initTemplate(root, 'sigterm', 'rest-api');
    const configuration = join(root, 'silent.json');
    await writeFile(
      configuration,
      JSON.stringify({
        auth_method: 'bearer',
        token: 'Sigterm-T0ken',
        base_url: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
        probe_path: 'health',
        timeout_seconds: '600',
      }),
    );
    try {
      const child = spawn(process.execPath, [IMAGE_BIN, 'check', '--config', configuration], {
        env: { ...process.env, CONNECTOR_AUTH_PROJECT: project },
        stdio: 'ignore',
      });
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.on('close', (code, signal) => resolve([code, signal])),
      );
      await connected;
      child.kill('SIGTERM');
      // Outside a container the default action would end it too, by the signal (code null): 143 is the handler's exit.
      expect(await exited).toEqual([143, null]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
