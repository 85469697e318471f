import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leakForms } from '../../helpers/cli.js';
import { start, type HttpApiPeer } from '../../peers/http-api.js';
import { ensureNodeBaseImage, type NodeBaseImage } from '../../peers/node-base-image.js';
import { podman, podmanOk } from '../../peers/podman.js';
import { configuredCatalog, lineProblems } from '../airbyte/support.js';
import { connectorClient, plain } from '../fivetran/support.js';
import { buildImage, changedPaths, scaffoldWithPackages, startContainer } from './support.js';

/**
 * The image `init`'s Dockerfile builds, built and run with a real container engine (podman), as the
 * platforms run it: Airbyte's four commands with their files in a mounted working directory, and
 * with no arguments the Fivetran partner SDK's gRPC server, driven by a gRPC client and stopped as
 * an engine stops a container. The project has npm dependencies of its own (date-fns, nanoid), used
 * by update(), which must reach the image through the project's lock. The base image is the local
 * stand-in for Node's (test/peers/node-base-image.ts); the sources are a real HTTP API on the
 * host, which the container reaches on 127.0.0.1 (the tests' containers.conf shares the host's network).
 */

const TOKEN = 'Image-T0ken/+rest?&x=1';
const NAME = 'image-connector';
const IMAGE = `localhost/connector-auth-image-test:${process.pid}`;
let peer: HttpApiPeer;
let root: string;
let config: string;
let base: NodeBaseImage;
let build: { code: number; stderr: string; ms: number };
const containers: string[] = [];

/** Each container gets its own name, removed at the end. */
function containerName(what: string): string {
  const name = `connector-auth-test-${process.pid}-${containers.length}-${what}`;
  containers.push(name);
  return name;
}

beforeAll(async () => {
  [peer, root, base] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 12, pageSize: 10 }),
    mkdtemp(join(tmpdir(), 'connector-auth-image-')),
    ensureNodeBaseImage(),
  ]);
  const project = await scaffoldWithPackages(root, NAME, ['date-fns@^4.1.0', 'nanoid@^5.1.0']);
  // update() uses both packages: a value each row carries that only they compute.
  const connector = join(project, 'connector.ts');
  const source = await readFile(connector, 'utf8');
  const upsert = "      for (const item of page.items) await op.upsert('items', item as Record<string, unknown>);\n";
  expect(source).toContain(upsert);
  await writeFile(
    connector,
    "import { formatISO } from 'date-fns';\nimport { nanoid } from 'nanoid';\n" +
      source.replace(
        upsert,
        `      for (const item of page.items) {
        const row = item as { id: number };
        const listed_on = formatISO(Date.UTC(2024, 0, row.id), { representation: 'date' });
        await op.upsert('items', { ...row, listed_on, tag: nanoid(8) });
      }
`,
      ),
  );
  // What a project holds after local runs, none of which may reach the image.
  await mkdir(join(project, 'files'));
  await writeFile(join(project, 'files', 'state.json'), '{"cursor":"10"}');
  await writeFile(join(project, 'files', 'refresh_token.recovery.json'), '{"refresh_token":"Rec0very-T0ken"}');
  expect(await readdir(project)).toEqual(
    expect.arrayContaining(['configuration.json', 'configuration.local.json', 'files']),
  );
  build = await buildImage(project, IMAGE);
  expect(build.code, build.stderr).toBe(0);

  // Airbyte's working directory: the configuration and catalog it writes for each command.
  config = join(root, 'config');
  await mkdirReadable(config);
  await writeFile(
    join(config, 'source_config.json'),
    JSON.stringify({ auth_method: { auth_method: 'bearer', token: TOKEN }, base_url: peer.url, probe_path: 'health' }),
  );
  await writeFile(
    join(config, 'wrong_config.json'),
    JSON.stringify({
      auth_method: { auth_method: 'bearer', token: 'Wr0ng-T0ken' },
      base_url: peer.url,
      probe_path: 'health',
    }),
  );
  await writeFile(join(config, 'source_catalog.json'), JSON.stringify(configuredCatalog([{ name: 'items' }])));
  process.stderr.write(
    `image test: base image ${base.built ? 'built' : 'reused'} in ${(base.ms / 1000).toFixed(1)} s, ` +
      `project image built in ${(build.ms / 1000).toFixed(1)} s\n`,
  );
}, 1_800_000);

afterAll(async () => {
  await peer?.stop();
  for (const name of containers) await podman(['rm', '--force', '--ignore', name]);
  await podman(['rmi', '--force', '--ignore', IMAGE]);
  if (root) await rm(root, { recursive: true, force: true });
});

async function mkdirReadable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  // The container's user is uid 1000; the test's temp directories are root's and 0700.
  await chmod(root, 0o755);
  await chmod(dir, 0o755);
}

interface ContainerRun {
  code: number;
  stdout: string;
  stderr: string;
  messages: { type: string; [field: string]: any }[];
  /** What the container wrote to its filesystem. */
  changed: string[];
}

/** `podman run IMAGE args…` as Airbyte runs it: the config folder mounted as its working directory. */
async function airbyteRun(args: string[], runArgs: string[] = []): Promise<ContainerRun> {
  const name = containerName(args[0] ?? 'run');
  const run = await podman([
    'run',
    '--name',
    name,
    '-v',
    `${config}:/config:ro`,
    '-w',
    '/config',
    ...runArgs,
    IMAGE,
    ...args,
  ]);
  const changed = await changedPaths(name);
  await podman(['rm', name]);
  const lines = run.stdout.split('\n').filter((line) => line.length > 0);
  for (const line of lines) expect(lineProblems(line), line.slice(0, 300)).toEqual([]);
  for (const form of leakForms(TOKEN)) expect(run.stdout + run.stderr).not.toContain(form);
  return { ...run, messages: lines.map((line) => JSON.parse(line) as ContainerRun['messages'][number]), changed };
}

describe('the image init’s Dockerfile builds', () => {
  it('holds the code and its production dependencies only: no credential, no files/, no dev dependency; runs as uid 1000 with the Airbyte labels', async () => {
    const [inspected] = JSON.parse(await podmanOk(['image', 'inspect', IMAGE])) as {
      Config: {
        User: string;
        Labels: Record<string, string>;
        Entrypoint: string[];
        Env: string[];
        ExposedPorts: object;
      };
    }[];
    expect(inspected!.Config.User).toBe('node');
    expect(inspected!.Config.Labels).toMatchObject({ 'io.airbyte.name': NAME, 'io.airbyte.version': '0.1.0' });
    expect(inspected!.Config.Entrypoint).toEqual(['connector-auth-image']);
    // Airbyte's launcher runs $AIRBYTE_ENTRYPOINT: the same program.
    expect(inspected!.Config.Env).toContain('AIRBYTE_ENTRYPOINT=connector-auth-image');
    expect(Object.keys(inspected!.Config.ExposedPorts)).toEqual(['50051/tcp']);

    const look = await podman([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'id -u; echo ---; ls -A /connector; echo ---; ls /connector/node_modules; echo ---; ' +
        'find /home/node/.cache/connector-auth /home/node/.cache/node-compile-cache -type f | wc -l',
    ]);
    expect(look.code, look.stderr).toBe(0);
    const [uid, project, modules, cached] = look.stdout.split('---\n').map((part) => part.trim().split('\n')) as [
      string[],
      string[],
      string[],
      string[],
    ];
    expect(uid).toEqual(['1000']);
    // The build's spec left both caches filled: connector.ts compiled, and Node's compiled modules.
    expect(Number(cached[0])).toBeGreaterThan(1);
    expect(project).toContain('connector.ts');
    expect(project).toContain('package-lock.json');
    for (const kept of ['configuration.json', 'configuration.local.json', 'files']) expect(project).not.toContain(kept);
    expect(modules).toEqual(expect.arrayContaining(['connector-auth', 'date-fns', 'nanoid']));
    // The project's devDependencies stay out (npm ci --omit=dev): TypeScript, and DuckDB, which only
    // debug uses; so do the optional peers no source of this project loads (the AWS SDK, pg…).
    for (const devOnly of ['typescript', '@duckdb', '@aws-sdk', 'pg']) expect(modules).not.toContain(devOnly);
  });

  it('Airbyte: spec, check, discover and read, its files in the working directory; rows carry what the npm dependencies computed; nothing is compiled again', async () => {
    const spec = await airbyteRun(['spec']);
    expect(spec.code, spec.stderr).toBe(0);
    expect(spec.messages.map((m) => m.type)).toEqual(['SPEC']);

    const check = await airbyteRun(['check', '--config', 'source_config.json']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.messages.filter((m) => m.type === 'CONNECTION_STATUS')).toEqual([
      expect.objectContaining({ connectionStatus: expect.objectContaining({ status: 'SUCCEEDED' }) }),
    ]);

    const discover = await airbyteRun(['discover', '--config', 'source_config.json']);
    expect(discover.code, discover.stderr).toBe(0);
    const [catalog] = discover.messages.filter((m) => m.type === 'CATALOG');
    expect(catalog!.catalog.streams.map((s: { name: string }) => s.name)).toEqual(['items']);

    const read = await airbyteRun(['read', '--config', 'source_config.json', '--catalog', 'source_catalog.json']);
    expect(read.code, read.stderr).toBe(0);
    const records = read.messages.filter((m) => m.type === 'RECORD').map((m) => m.record.data);
    expect(records).toHaveLength(12);
    for (const row of records) {
      expect(row.listed_on).toBe(`2024-01-${String(row.id).padStart(2, '0')}`);
      expect(row.tag).toMatch(/^[\w-]{8}$/);
    }
    const states = read.messages.filter((m) => m.type === 'STATE');
    expect(states.length).toBeGreaterThan(0);

    // The next sync, as Airbyte runs it: the last state handed back with --state. The template reads
    // its list whole (incremental: false), so the next sync has every row again.
    await writeFile(join(config, 'state.json'), JSON.stringify([states.at(-1)!.state]));
    const resumed = await airbyteRun([
      'read',
      '--config',
      'source_config.json',
      '--catalog',
      'source_catalog.json',
      '--state',
      'state.json',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.messages.filter((m) => m.type === 'RECORD').map((m) => m.record.data.id)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    expect(resumed.messages.filter((m) => m.type === 'STATE').at(-1)?.state.type).toBe('STREAM');

    // Each command found connector.ts compiled at build: nothing under the connector cache was written.
    for (const run of [spec, check, discover, read, resumed])
      expect(run.changed.filter((path) => path.startsWith('/home/node/.cache/connector-auth'))).toEqual([]);
  });

  it("Airbyte's launcher: $AIRBYTE_ENTRYPOINT from a shell; a wrong token is a FAILED check naming the key, without the token", async () => {
    const check = await airbyteRun(
      ['-c', 'eval "$AIRBYTE_ENTRYPOINT check --config wrong_config.json"'],
      ['--entrypoint', 'sh'],
    );
    expect(check.code, check.stderr).toBe(0);
    const [status] = check.messages.filter((m) => m.type === 'CONNECTION_STATUS');
    expect(status!.connectionStatus.status).toBe('FAILED');
    expect(status!.connectionStatus.message).toMatch(/check 'token'/);
    for (const form of leakForms('Wr0ng-T0ken')) expect(check.stdout + check.stderr).not.toContain(form);
  });

  it('Fivetran: with no arguments, the partner SDK gRPC server on port 50051 (IPv4 and IPv6); `podman stop` ends it by SIGTERM, exit 0', async () => {
    const container = startContainer(containerName('serve'), [], IMAGE);
    await container.until(/listening on \[::\]:50051/);
    const client = connectorClient(50051);
    try {
      const form = (await client.configurationForm()) as { fields: { name: string }[] };
      expect(form.fields.map((f) => f.name)).toContain('auth_method');
      const configuration = { auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health' };
      expect(await client.test(configuration)).toEqual({ success: true, response: 'success' });
      expect((await client.test({ ...configuration, token: 'Wr0ng-T0ken' })).failure).toMatch(/'token'/);
      const update = await client.update({ configuration });
      expect(update.error).toBeUndefined();
      // An upsert is the enum's default, which the client decodes as no type.
      expect(update.records.every((r) => r.table_name === 'items' && r.type === undefined)).toBe(true);
      const rows = update.records.map(plain);
      expect(rows).toHaveLength(12);
      expect(rows[0]).toMatchObject({ listed_on: { string: '2024-01-01' } });
    } finally {
      client.close();
    }
    // Past the engine's grace period the container is killed (137): exit 0 means serve itself ended on SIGTERM.
    const stopping = performance.now();
    await podmanOk(['stop', '--time', '120', container.name]);
    expect(await container.exited).toBe(0);
    process.stderr.write(
      `image test: serve stopped ${Math.round(performance.now() - stopping)} ms after podman stop\n`,
    );
    for (const form of leakForms(TOKEN)) expect(container.stdout() + container.stderr()).not.toContain(form);
  });

  it('an Airbyte read stopped by the engine while it waits on its source ends on SIGTERM (143), not at the kill', async () => {
    // A source that accepts the connection and never answers: the probe waits.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    const connected = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      await writeFile(
        join(config, 'silent_config.json'),
        JSON.stringify({
          auth_method: { auth_method: 'bearer', token: TOKEN },
          base_url: `http://127.0.0.1:${port}`,
          probe_path: 'health',
          timeout_seconds: '600',
        }),
      );
      const container = startContainer(containerName('read'), ['-v', `${config}:/config:ro`, '-w', '/config'], IMAGE, [
        'read',
        '--config',
        'silent_config.json',
        '--catalog',
        'source_catalog.json',
      ]);
      await connected;
      await podmanOk(['stop', '--time', '120', container.name]);
      expect(await container.exited).toBe(143);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
