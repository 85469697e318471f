import { mkdtemp, readFile, rm, writeFile, mkdir, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, start, type HttpApiPeer } from '../peers/http-api.js';
import { cli, exists, leakForms, readTree } from '../helpers/cli.js';

/**
 * The foundation's promise, end to end through the built CLI: scaffold a REST connector, run it
 * against a real loopback API, and fail fast, clearly and without leaking on every kind of mistake.
 */

const TOKEN = 'tok_live_Sup3rSecret';
let peer: HttpApiPeer;
let root: string;

beforeAll(async () => {
  peer = await start({ auth: { kind: 'bearer', token: TOKEN }, items: 25, pageSize: 10 });
  root = await mkdtemp(join(tmpdir(), 'connector-auth-debug-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});

async function project(name: string, configuration: Record<string, unknown> | string): Promise<string> {
  const dir = join(root, name);
  const init = await cli(['init', dir, '--template', 'rest-api']);
  expect(init.code, init.stderr).toBe(0);
  await writeFile(
    join(dir, 'configuration.json'),
    typeof configuration === 'string' ? configuration : JSON.stringify(configuration, null, 2),
  );
  return dir;
}

const good = () => ({
  auth_method: 'bearer',
  token: TOKEN,
  base_url: peer.url,
  probe_path: 'health',
  items_path: 'items',
});

describe('connector-auth debug', () => {
  it('init writes a connector, a configuration and a README', async () => {
    const dir = join(root, 'fresh');
    const run = await cli(['init', dir]);
    expect(run.code).toBe(0);
    expect((await readdir(dir)).sort()).toEqual([
      '.dockerignore',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'acceptance-test-config.yml',
      'configuration.json',
      'configuration.local.json',
      'connector.ts',
      'integration_tests',
      'package.json',
      'tsconfig.json',
      'vendor',
    ]);
    // The configurations are for their owner only before a credential is written into them.
    expect((await stat(join(dir, 'configuration.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'configuration.local.json'))).mode & 0o777).toBe(0o600);
    const again = await cli(['init', dir]);
    expect(again.code).toBe(2);
  });

  it('exit 0 with good credentials: rows in the warehouse, state saved, counts printed', async () => {
    const dir = await project('good', good());
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+25/);
    expect(run.stdout).toMatch(/Checkpoints\s+\|\s+3/);
    expect(run.stdout).toContain('Sync SUCCEEDED');
    const state = JSON.parse(await readFile(join(dir, 'files', 'state.json'), 'utf8'));
    expect(state.synced_at).toBeTypeOf('string');

    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
    const connection = await db.connect();
    const rows = (
      await connection.runAndReadAll(
        'SELECT count(*), count(DISTINCT id), bool_or(_fivetran_deleted) FROM tester.items',
      )
    ).getRows();
    expect(rows[0]).toEqual([25n, 25n, false]);
    connection.closeSync();
    db.closeSync();

    for (const form of leakForms(TOKEN)) {
      expect(run.stdout + run.stderr).not.toContain(form);
      expect(await readTree(join(dir, 'files'))).not.toContain(form);
    }
  });

  it('--json prints one result object', async () => {
    const dir = await project('json', good());
    const run = await cli(['debug', dir, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ ok: true, counts: { upserts: 25 }, probe: { outcome: 'HTTP 200' } });
    // A first sync into a new warehouse takes the fast path: every upsert appended, none merged.
    expect(result.counts).toMatchObject({ upserts_appended: 25, upserts_merged: 0 });
    expect(run.stderr).toMatch(/sync done in [\d.]+ s: 25 upserts, .*; upserts appended 25, merged 0/);
  });

  it('exit 3 with a wrong secret, in one round trip, leaking nothing and writing nothing', async () => {
    const wrong = 'tok_live_WRONG_value';
    const dir = await project('wrong', { ...good(), token: wrong });
    const before = peer.requests.length;
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(peer.requests.length - before).toBe(1);
    const line = run.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('error'))
      .join('\n');
    expect(line).toMatch(
      /^error \[http_401\]: bearer token: GET http:\/\/127\.0\.0\.1:\d+\/health rejected the credentials \(HTTP 401 Unauthorized\) — check 'token'$/,
    );
    for (const form of leakForms(wrong)) expect(run.stdout + run.stderr).not.toContain(form);
    expect(await exists(join(dir, 'files'))).toBe(false);
  });

  it('exit 4 when nothing listens', async () => {
    const port = await closedPort();
    const dir = await project('unreachable', { ...good(), base_url: `http://127.0.0.1:${port}` });
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('connection refused');
    expect(run.stderr).toContain("check 'base_url'");
    expect(await exists(join(dir, 'files'))).toBe(false);
  });

  const badConfigurations: [string, () => Record<string, unknown> | string, RegExp][] = [
    [
      'invalid JSON',
      () => '{ "auth_method": "bearer", "token": "tok_live_Sup3rSecret" ',
      /not valid JSON: .* at line 1, column \d+/,
    ],
    ['a non-string value', () => ({ ...good(), timeout_seconds: 10 }), /key 'timeout_seconds' is a number/],
    ['a missing key', () => ({ auth_method: 'bearer', base_url: 'http://127.0.0.1:1' }), /key 'token' is missing/],
    [
      'a malformed key',
      () => ({ ...good(), base_url: 'ftp://example.com' }),
      /key 'base_url' must start with https:\/\/ or http:\/\//,
    ],
    [
      'an unknown auth_method',
      () => ({ ...good(), auth_method: 'magic' }),
      /key 'auth_method' names 'magic', which is not a known method; valid methods: basic, bearer, api_key.* — check 'auth_method'/,
    ],
    ['a malformed number', () => ({ ...good(), timeout_seconds: 'soon' }), /key 'timeout_seconds' must be a number/],
  ];
  for (const [what, configuration, message] of badConfigurations) {
    it(`exit 2 for ${what}, with nothing written under files/`, async () => {
      const dir = await project(`bad-${what.replace(/\W+/g, '-')}`, configuration());
      const run = await cli(['debug', dir]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(
        run.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('error')),
      ).toHaveLength(1);
      expect(run.stderr).not.toContain(TOKEN);
      expect(await exists(join(dir, 'files'))).toBe(false);
    });
  }

  it('exit 2 when the configuration file is missing', async () => {
    const dir = await project('nofile', good());
    await rm(join(dir, 'configuration.json'));
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('does not exist');
  });

  it("schema() gets the configuration update() gets: the connector's keys typed, their defaults applied", async () => {
    const dir = await project('typed-schema', good());
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector, z } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  configuration: z.object({ table: z.string().default('widgets'), key: z.string().default('id,kind').transform((v) => v.split(',')) }),
  schema: (configuration) => [{ table: configuration.table, primary_key: configuration.key }],
  async update({ op }) {
    await op.upsert('widgets', { id: 1, kind: 'a' });
    await op.upsert('widgets', { id: 1, kind: 'b' });
    await op.upsert('widgets', { id: 1, kind: 'a' });
  },
});
`,
    );
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
    const connection = await db.connect();
    // The declared two-column key merges the third upsert into the first.
    expect((await connection.runAndReadAll('SELECT id, kind FROM tester.widgets ORDER BY kind')).getRows()).toEqual([
      [1n, 'a'],
      [1n, 'b'],
    ]);
    connection.closeSync();
    db.closeSync();
  });

  it('redacts a secret the connector prints itself, and refuses a state that holds one (exit 1)', async () => {
    const dir = await project('leaky', good());
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  async update({ configuration, op }) {
    console.log('config', configuration);
    console.log('raw', configuration.token, JSON.stringify({ t: configuration.token }));
    await op.checkpoint({ leaked: configuration.token });
  },
});
`,
    );
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('<redacted:token>');
    expect(run.stderr).toContain(
      "refusing to save the state: it holds the value of secret configuration key(s) 'token'",
    );
    for (const form of leakForms(TOKEN))
      expect(run.stdout + run.stderr + (await readTree(join(dir, 'files')))).not.toContain(form);
    expect(await exists(join(dir, 'files', 'state.json'))).toBe(false);
  });

  it("--verbose shows the stack of the connector's own exception (the cause of update_failed), redacted", async () => {
    const dir = await project('throwing', good());
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector } from 'connector-auth';
function parseRow(token: string): never {
  throw new Error('cannot parse the row fetched with ' + token);
}
export default defineConnector({
  source: 'rest',
  async update({ configuration }) {
    parseRow(configuration.token);
  },
});
`,
    );
    const plain = await cli(['debug', dir]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toContain('parseRow');
    const verbose = await cli(['debug', dir, '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(
      /caused by: Error: cannot parse the row fetched with <redacted:token>\n\s+at parseRow \(.*connector\.ts/,
    );
    for (const form of leakForms(TOKEN)) expect(verbose.stdout + verbose.stderr).not.toContain(form);
  });

  it('reset --yes removes exactly the warehouse and the state', async () => {
    const dir = await project('reset', good());
    expect((await cli(['debug', dir])).code).toBe(0);
    await writeFile(join(dir, 'files', 'keep-me.txt'), 'author file');
    const run = await cli(['reset', dir, '--yes']);
    expect(run.code).toBe(0);
    expect((await readdir(join(dir, 'files'))).sort()).toEqual(['keep-me.txt']);
    expect(await exists(join(dir, 'connector.ts'))).toBe(true);
    expect(await exists(join(dir, 'configuration.json'))).toBe(true);
  });

  it('probe and validate work on the same project', async () => {
    const dir = await project('probe', good());
    const probe = await cli(['probe', dir]);
    expect(probe.code).toBe(0);
    expect(probe.stdout).toMatch(/probe OK: GET http:\/\/127\.0\.0\.1:\d+\/health → HTTP 200/);
    const before = peer.requests.length;
    const validate = await cli(['validate', dir, '--json']);
    expect(validate.code).toBe(0);
    expect(JSON.parse(validate.stdout)).toMatchObject({
      ok: true,
      auth_method: 'bearer',
      source: 'rest',
      secret_keys: ['token'],
    });
    expect(peer.requests.length).toBe(before);
  });

  it('a connector with its own folder of files/ keeps working after a second run (state resumes)', async () => {
    const dir = await project('twice', good());
    await mkdir(join(dir, 'files'));
    expect((await cli(['debug', dir])).code).toBe(0);
    const second = await cli(['debug', dir]);
    expect(second.code).toBe(0);
  });
});
