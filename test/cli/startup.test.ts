import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEAVY, loadedModules } from '../../bench/start/startup.js';
import { freePort } from '../peers/daemon.js';
import { BIN, cli } from '../helpers/cli.js';

/** The commands --help lists (airbyte, whose stdout is Airbyte's, is checked on its own). */
const COMMANDS = [
  'init',
  'debug',
  'probe',
  'authorize',
  'validate',
  'doctor',
  'reset',
  'pipeline',
  'webhooks',
  'serve',
  'emulator',
];

describe('start-up cost', () => {
  it('--help loads none of the AWS SDK, pg, ssh2, basic-ftp, mysql2, DuckDB, node-forge, undici, zod or gRPC', async () => {
    const modules = await loadedModules(['--help']);
    expect(modules.length).toBeGreaterThan(0); // the recorder works
    expect(modules.filter((url) => HEAVY.test(url))).toEqual([]);
  });

  it('the bundle the CLI and connectors load is ASCII only: one other character in a file, even in a comment, makes V8 keep its source as a two-byte string, twice the memory', async () => {
    const bundle = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));
    const files = (await readdir(bundle)).filter((name) => /\.c?js$/.test(name));
    expect(files).toContain('zod.cjs');
    expect(files).toContain('duckdb-node-api.cjs');
    expect(files).toContain('grpc.cjs');
    for (const name of files) {
      expect(/[\u0080-\uffff]/.test(await readFile(join(bundle, name), 'utf8')), name).toBe(false);
    }
  });

  it("a REST connector's probe loads no database or file-transfer driver (pg, ssh2, basic-ftp, mysql2), nor undici; our modules in a few files, and zod's compiled code kept for the next run on Node 20", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'connector-auth-startup-'));
    try {
      expect((await cli(['init', dir, '--template', 'rest-api'])).code).toBe(0);
      const configuration = {
        auth_method: 'bearer',
        token: 'a-token-for-the-start-up-test',
        base_url: `http://127.0.0.1:${await freePort()}`,
        probe_path: 'health',
        items_path: 'items',
      };
      await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration));
      const cacheDir = join(dir, 'cache');
      const modules = await loadedModules(['probe'], dir, { CONNECTOR_AUTH_CACHE_DIR: cacheDir });
      // The probe ran: the rest source was loaded (and failed to reach the closed port).
      expect(modules.some((url) => /sources\/rest/.test(url))).toBe(true);
      expect(modules.filter((url) => /\/pg\/|ssh2|basic-ftp|mysql2|undici/.test(url))).toEqual([]);
      // Our modules come in a few files of dist/bundle/ (scripts/start-chunks.js), zod's included:
      // on Node 20 each file and each import between files costs far more than its bytes. esbuild's
      // split made it 26; the REST source and the bearer credential are in the run chunk (8 files,
      // and the loader hooks' chunk on Node 22.15+).
      const files = new Set(modules.filter((url) => url.includes('/dist/bundle/')));
      expect(files.size).toBeLessThanOrEqual(9);
      // zod's compiled code is kept for the next run (src/code-cache/) where Node keeps none: on
      // Node 22.1+ bin/ turns Node's own compile cache on, and zod is a plain require().
      const kept = await readdir(join(cacheDir, 'v8')).catch(() => []);
      expect(kept.filter((name) => name.endsWith('.bin'))).toHaveLength('enableCompileCache' in nodeModule ? 0 : 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("airbyte spec reads no export of node:fs, crypto or net it does not use (an ES import's facade reads them all, and their getters load Node's file streams, Web Crypto and block lists), nor loads fs/promises, which it never calls (scripts/builtin-imports.js)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'connector-auth-startup-'));
    try {
      expect((await cli(['init', dir, '--template', 'rest-api'])).code).toBe(0);
      // Node's own list of the modules it loaded, in this thread (no loader hooks of a recorder),
      // against an empty ES module's: Node 20's ES loader reads files with fs/promises itself.
      const list = join(dir, 'node-modules.txt');
      const preload = join(dir, 'list-node-modules.cjs');
      await writeFile(
        preload,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
      );
      const nodeModules = async (args: string[]) => {
        const run = spawnSync(process.execPath, ['--require', preload, ...args], { encoding: 'utf8' });
        return { stdout: run.stdout, loaded: (await readFile(list, 'utf8')).split('\n') };
      };
      await writeFile(join(dir, 'empty.mjs'), '');
      const floor = new Set((await nodeModules([join(dir, 'empty.mjs')])).loaded);
      const spec = await nodeModules([BIN, 'airbyte', 'spec', dir]);
      expect(JSON.parse(spec.stdout).type).toBe('SPEC');
      const unused = ['fs/streams', 'crypto/webcrypto', 'blocklist', 'fs/promises'].map(
        (name) => `NativeModule internal/${name}`,
      );
      expect(spec.loaded.filter((line) => unused.includes(line) && !floor.has(line))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serve --help loads no gRPC: grpc-js and the protocol files load when a server starts', async () => {
    const modules = await loadedModules(['serve', '--help']);
    expect(modules.some((url) => url.endsWith('/cli/commands/hosts/serve.js'))).toBe(true);
    expect(modules.filter((url) => /@grpc|protobufjs|bundle\/grpc\.cjs|hosts\/fivetran/.test(url))).toEqual([]);
  });

  it('--help prints the commands and the exit codes', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const word of [...COMMANDS, 'Exit codes']) expect(run.stdout).toContain(word);
  });

  it('a --port that is not a port number is bad input (exit 2) for serve and emulator', async () => {
    for (const [command, port] of [
      ['serve', '70000'],
      ['emulator', '80a'],
    ] as const) {
      const run = await cli([command, '--port', port]);
      expect(run.code, command).toBe(2);
      expect(run.stderr).toBe(
        `error [invalid_arguments]: --port must be a port number from 0 to 65535 — see connector-auth ${command} --help\n`,
      );
    }
  });

  it('an unknown command is exit 2 with the help', async () => {
    const run = await cli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'frobnicate'");
  });

  it('an unknown flag is bad input (exit 2) for every command, pointing to its help', async () => {
    for (const command of [...COMMANDS, 'version']) {
      const run = await cli([command, '--frobnicate']);
      expect(run.code, command).toBe(2);
      expect(run.stderr).toBe(
        `error [invalid_arguments]: unknown option '--frobnicate' for connector-auth ${command} — see connector-auth ${command} --help\n`,
      );
    }
    // airbyte owns stdout, where Airbyte reads every line as a message: the same verdict as a TRACE.
    const airbyte = await cli(['airbyte', 'spec', '--frobnicate']);
    expect(airbyte.code).toBe(2);
    const trace = JSON.parse(airbyte.stdout) as {
      type: string;
      trace: { error: { message: string; failure_type: string } };
    };
    expect(trace.type).toBe('TRACE');
    expect(trace.trace.error).toMatchObject({
      failure_type: 'config_error',
      message: expect.stringContaining("'--frobnicate'"),
    });
  });
});
