import { execFile, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { connectorClient } from '../hosts/fivetran/support.js';

/**
 * What a user of the published package does: `npm pack` (the files the registry would get), the
 * tarball installed into an empty directory, and the package used from there only — its bin, its
 * templates, a debug run, and its type declarations checked the strict way, against nothing but
 * what that install brought.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, unknown>;
  devDependencies: Record<string, string>;
};
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

let work: string;
let tarball: string;
let consumer: string;
let bin: string;
const INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline'];
let emulator: RunningEmulator;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'connector-auth-packed-'));
  consumer = join(work, 'consumer');
  await mkdir(consumer);
  // Scripts off: the run has built (`npm test` builds first), and prepack's build would replace
  // dist/ under the test files running beside this one.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], {
    cwd: root,
  });
  tarball = join(work, packed.stdout.trim().split('\n').pop()!);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // A TypeScript user has @types/node for their own code; nothing else is added by hand (npm
  // installs no optional peer unless asked).
  await run('npm', [...INSTALL, tarball, `@types/node@${manifest.devDependencies['@types/node']}`], { cwd: consumer });
  bin = join(consumer, 'node_modules', '.bin', 'connector-auth');
  emulator = await startEmulator();
}, 240_000);

afterAll(async () => {
  await emulator?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The files a tarball (or a package directory) gives `npm pack`, scripts off: the list npm would ship. */
async function packedFiles(tarballOrDirectory: string): Promise<string[]> {
  const listed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', tarballOrDirectory], {
    cwd: work,
  });
  return (JSON.parse(listed.stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path).sort();
}

/** A pipeline-metadata project whose configuration is the package's example, pointed at the emulator. */
async function emulatorProject(project: string): Promise<void> {
  expect((await cli(['init', project, '--template', 'pipeline-metadata', '--registry'])).code).toBe(0);
  const example = JSON.parse(
    await readFile(join(consumer, 'node_modules', 'connector-auth', 'configuration.example.json'), 'utf8'),
  ) as object;
  await writeFile(join(project, 'configuration.json'), JSON.stringify({ ...example, base_url: emulator.pipelineUrl }));
}

const cli = (args: string[]) =>
  run(bin, args, { cwd: consumer, env: { ...process.env, NO_COLOR: '1' } }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code?: number; stdout?: string; stderr?: string }) => ({
      code: failed.code ?? -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    }),
  );

describe('the packed package, installed into an empty directory with none of its optional peers', () => {
  it('answers --help from its bin', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/debug \[project\]/);
  });

  it("issue 38: the image's entrypoint bin runs from the installed package, handing other commands to the CLI", async () => {
    const image = join(consumer, 'node_modules', '.bin', 'connector-auth-image');
    const version = await run(image, ['--version'], { cwd: consumer });
    expect(version.stdout.trim()).toContain(manifest.version);
  });

  it("z.locales: English built in, every other locale of zod's loaded when asked for (from the installed zod)", async () => {
    const script = `import { z } from 'connector-auth';
const de = z.string().safeParse(1, { error: z.locales.de().localeError });
console.log(JSON.stringify([Object.keys(z.locales).length, z.string().safeParse(1).error.issues[0].message, de.error.issues[0].message]));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
    const [count, english, german] = JSON.parse(stdout) as [number, string, string];
    expect(count).toBeGreaterThan(40);
    expect(english).toBe('Invalid input: expected string, received number');
    expect(german).toBe('Ungültige Eingabe: erwartet string, erhalten Zahl');
  });

  it('type-checks a consumer of every exports entry with strict and skipLibCheck: false', async () => {
    const entries = Object.keys(manifest.exports).filter((entry) => entry !== './package.json');
    const imports = entries.map((entry, i) => `import * as entry${i} from '${join('connector-auth', entry)}';`);
    await writeFile(
      join(consumer, 'index.ts'),
      `${imports.join('\n')}\nexport const entries = [${entries.map((_, i) => `entry${i}`).join(', ')}];\n`,
    );
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          types: ['node'],
        },
        files: ['index.ts'],
      }),
    );
    const check = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer }).then(
      () => '',
      (failed: { stdout?: string }) => failed.stdout ?? 'tsc failed',
    );
    expect(check).toBe('');
  }, 120_000);

  it('issue 24, point 11: ships LICENSE (MIT), docs/ as the README links it, the sources its maps name; README says ESM only', async () => {
    const installed = join(consumer, 'node_modules', 'connector-auth');
    const installedManifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      license: string;
      repository?: unknown;
    };
    expect(installedManifest.license).toBe('MIT');
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    const readme = await readFile(join(installed, 'README.md'), 'utf8');
    expect(readme).toMatch(/ESM only/);
    for (const [, link] of readme.matchAll(/\]\((docs\/[^)#]+)/g)) await access(join(installed, link!));
    // Every source a shipped map names (the bundle's, for --verbose stacks) is shipped.
    const maps = (await readdir(join(installed, 'dist'), { recursive: true })).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(20);
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(join(installed, 'dist', map), 'utf8')) as { sources: string[] };
      for (const source of sources) await access(resolve(dirname(join(installed, 'dist', map)), source));
    }
  });

  it('issue 38: holds what runs and what a user reads, not the per-file build the bundle replaced', async () => {
    const files = await packedFiles(root);
    // Our own code runs from the bundle; of tsc's per-file output, only the loader hooks (loaded by
    // URL) and their imports, the image entrypoint's module (its bin imports it), and the declarations.
    const perFile = files.filter((file) => file.startsWith('dist/') && !file.startsWith('dist/bundle/'));
    const perFileCode = perFile.filter((file) => !file.endsWith('.d.ts'));
    expect(perFileCode).toContain('dist/project/loader/connector-hooks.js');
    expect(perFileCode).toContain('dist/cli/image-entrypoint.js');
    expect(
      perFileCode.every((file) =>
        /^dist\/((project\/loader|code-cache)\/[\w-]+|cli\/image-entrypoint)\.js$/.test(file),
      ),
    ).toBe(true);
    expect(files.filter((file) => file.endsWith('.d.ts.map'))).toEqual([]);
    // A declaration no exports entry reaches (the DuckDB engine's) stays out; the entries' own are in.
    expect(files).not.toContain('dist/hosts/local/warehouse/base/duckdb-types.d.ts');
    for (const entry of Object.values(manifest.exports)) {
      if (typeof entry === 'object' && entry !== null && 'types' in entry) {
        expect(files).toContain((entry as { types: string }).types.replace(/^\.\//, ''));
      }
    }
  });

  it('issue 24, point 11: --verbose stacks name the shipped TypeScript sources', async () => {
    const project = join(work, 'verbose');
    expect((await cli(['init', project, '--template', 'rest-api', '--registry'])).code).toBe(0);
    const run = await cli(['debug', project, '--verbose']);
    expect(run.code).toBe(2);
    const frames = [
      ...run.stderr.matchAll(/\((\/[^():]+\/node_modules\/connector-auth\/src\/[^():]+\.ts):\d+:\d+\)/g),
    ].map((m) => m[1]!);
    expect(frames.length).toBeGreaterThan(0);
    for (const file of frames) await access(file);
  });

  it('issue 38: debug without DuckDB (an optional peer) exits 2 naming the package, before files/ is made', async () => {
    const project = join(work, 'no-duckdb');
    await emulatorProject(project);
    const debug = await cli(['debug', project]);
    expect(debug.code, debug.stderr).toBe(2);
    expect(debug.stderr).toContain("needs the npm package '@duckdb/node-api', which is not installed");
    expect(debug.stderr).toContain('npm install @duckdb/node-api');
    expect(debug.stderr).toContain('dependency_missing');
    expect(await readdir(project)).not.toContain('files');
  });

  it("issue 38: a postgres configuration without pg (an optional peer) exits 2 naming 'pg'", async () => {
    const project = join(work, 'no-pg');
    expect((await cli(['init', project, '--template', 'database', '--registry'])).code).toBe(0);
    const validate = await cli(['validate', project, '--configuration', join(project, 'configuration.local.json')]);
    expect(validate.code, validate.stderr).toBe(2);
    expect(validate.stderr).toContain("source 'postgres' needs the npm package 'pg', which is not installed");
    expect(validate.stderr).toContain('npm install pg');
  });
});

describe('the packed package with DuckDB, as a project installs it for debug', () => {
  beforeAll(async () => {
    await run('npm', [...INSTALL, `@duckdb/node-api@${manifest.devDependencies['@duckdb/node-api']}`], {
      cwd: consumer,
    });
  }, 240_000);

  it('scaffolds every template it ships', async () => {
    // A template is a folder; templates/Dockerfile beside them is the one init writes into each.
    const shipped = await readdir(join(consumer, 'node_modules', 'connector-auth', 'templates'), {
      withFileTypes: true,
    });
    expect(shipped.filter((entry) => entry.isFile()).map((entry) => entry.name)).toEqual(['Dockerfile']);
    const templates = shipped.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(templates.length).toBeGreaterThanOrEqual(4);
    const installedFiles = await packedFiles(join(consumer, 'node_modules', 'connector-auth'));
    for (const template of templates) {
      const project = join(work, `from-${template}`);
      const init = await cli(['init', project, '--template', template]);
      expect(init.code, `${template}: ${init.stderr}`).toBe(0);
      expect(await readdir(project)).toEqual(
        expect.arrayContaining(['configuration.json', 'connector.ts', 'Dockerfile', 'vendor']),
      );
      // issue 38: the running copy, an install in node_modules, packed into the project as it was shipped.
      const vendored = `vendor/connector-auth-${manifest.version}.tgz`;
      expect(await readdir(join(project, 'vendor'))).toEqual([`connector-auth-${manifest.version}.tgz`]);
      const written = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(written.dependencies['connector-auth']).toBe(`file:${vendored}`);
      expect(await packedFiles(join(project, vendored))).toEqual(installedFiles);
    }
  }, 120_000);

  it('runs debug of a REST connector (the pipeline-metadata template) against the emulator', async () => {
    const project = join(consumer, 'rest-project');
    await emulatorProject(project);
    const debug = await cli(['debug', project]);
    expect(debug.stderr).toMatch(/probe succeeded/);
    expect(debug.code).toBe(0);
  });

  it('serves the partner SDK from the installed package: its protocol files are found there, Test probes the emulator', async () => {
    const project = join(consumer, 'rest-project');
    const server = spawn(bin, ['serve', project, '--port', '0', '--host', '127.0.0.1'], {
      cwd: consumer,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    const port = await new Promise<number>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on 127\.0\.0\.1:(\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
      });
      server.once('close', (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
    });
    expect(stdout).toContain('fivetran_sdk.v2.SourceConnector');
    const client = connectorClient(port);
    try {
      const form = (await client.configurationForm()) as { fields: { name: string }[] };
      expect(form.fields.map((f) => f.name)).toContain('auth_method');
      const configuration = JSON.parse(await readFile(join(project, 'configuration.json'), 'utf8')) as Record<
        string,
        string
      >;
      expect(await client.test(configuration)).toMatchObject({ success: true });
    } finally {
      client.close();
      const exited = new Promise((resolve) => server.once('close', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('issue 24 point 4, issue 38: a project it scaffolds installs by `npm install` alone, type-checks, and runs its own copy', async () => {
    const project = join(work, 'typed');
    const init = await cli(['init', project, '--template', 'file-storage']);
    expect(init.code).toBe(0);
    // The hint: install first, then commands that work after npx, where a bare `connector-auth` is not on PATH.
    expect(init.stdout).toMatch(/^ {2}npm install /m);
    expect(init.stdout).toMatch(/^ {2}npx connector-auth validate/m);
    expect(init.stdout).not.toMatch(/^\s+connector-auth /m);
    const check = () =>
      run(process.execPath, [tsc, '-p', project], { cwd: project }).then(
        () => '',
        (failed: { stdout?: string }) => failed.stdout ?? 'tsc failed',
      );
    // Before the install: what an editor showed a new user.
    expect(await check()).toMatch(/Cannot find module 'connector-auth'/);
    // No registry holds connector-auth: the project's vendor/ does.
    await run('npm', INSTALL, { cwd: project });
    expect(await check()).toBe('');
    const typecheck = await run('npm', ['run', '--silent', 'typecheck'], { cwd: project }).then(
      () => 0,
      (failed: { code?: number }) => failed.code ?? 1,
    );
    expect(typecheck).toBe(0);
    const version = await run('npx', ['connector-auth', '--version'], { cwd: project });
    expect(version.stdout).toContain(manifest.version);
    const which = await run('npm', ['exec', '-c', 'command -v connector-auth'], { cwd: project });
    expect(which.stdout.trim()).toBe(join(project, 'node_modules', '.bin', 'connector-auth'));
  }, 240_000);
});
