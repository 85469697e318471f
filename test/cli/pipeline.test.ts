import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// internals: the command itself, and cli/'s error printer (cli/ is the entry point and has no door)
import command from '../../src/cli/commands/interfaces/pipeline.js';
import { printError } from '../../src/cli/print-error.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { captureIO, control, emulator, expectNoLeak } from '../emulator/support.js';

/**
 * `connector-auth pipeline …` in-process against the emulator: the command's output and the exit code
 * main would return (printError maps what the command throws). Credentials from a configuration file,
 * from environment variables, and --base-url.
 */

let emu: RunningEmulator;
let dir: string;
let configuration: string;
const ENV = ['CONNECTOR_AUTH_BASE_URL', 'CONNECTOR_AUTH_API_KEY', 'CONNECTOR_AUTH_API_SECRET'] as const;

beforeAll(async () => {
  emu = await emulator();
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-pipeline-cli-'));
  configuration = join(dir, 'configuration.json');
  await writeFile(
    configuration,
    JSON.stringify({
      auth_method: 'basic',
      username: emu.credentials.apiKey,
      password: emu.credentials.apiSecret,
      base_url: emu.pipelineUrl,
    }),
  );
});
afterAll(async () => {
  await emu.stop();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const name of ENV) delete process.env[name];
});

/** Runs the command as main would: a thrown error becomes its printed line and exit code. */
async function run(args: string[], json = false) {
  const io = captureIO(json);
  let code: number;
  try {
    code = await command.run(args, io);
  } catch (error) {
    code = printError(error, io);
  }
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n'), all: io.text(), progress: io.progressLines };
}

describe('pipeline groups', () => {
  it('prints a table of every group (configuration file)', async () => {
    const r = await run(['groups', '--configuration', configuration]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^ID\s+\| NAME\s+\| CREATED_AT$/);
    expect(r.out).toMatch(/grp_analytics\s+\| Analytics/);
    expect(r.out.split('\n')).toHaveLength(2 + 6);
  });

  it('--json prints one document; --limit pages under the hood', async () => {
    const r = await run(['groups', '--configuration', configuration, '--limit', '2'], true);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.ok).toBe(true);
    expect(doc.items).toHaveLength(6);
  });

  it('environment variables work without a file', async () => {
    process.env.CONNECTOR_AUTH_BASE_URL = emu.pipelineUrl;
    process.env.CONNECTOR_AUTH_API_KEY = emu.credentials.apiKey;
    process.env.CONNECTOR_AUTH_API_SECRET = emu.credentials.apiSecret;
    expect((await run(['groups'])).code).toBe(0);
  });

  it('a file named with --configuration wins over the environment', async () => {
    process.env.CONNECTOR_AUTH_API_SECRET = 'env-secret-that-is-wrong';
    expect((await run(['groups', '--configuration', configuration])).code).toBe(0);
  });

  it('--base-url wins over the file', async () => {
    const r = await run(['groups', '--configuration', configuration, '--base-url', 'http://127.0.0.1:9']);
    expect(r.code).toBe(4);
  });
});

describe('pipeline connectors', () => {
  it('lists every connector of a group (two pages at the default limit)', async () => {
    const r = await run(['connectors', 'grp_analytics', '--configuration', configuration], true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).items).toHaveLength(160);
  });

  it('a slow listing shows a progress line while pages come, and clears it before the result', async () => {
    // The first page request is told to wait a second (429, Retry-After: 1), so the listing is slow enough to report.
    const added = await control(emu, 'POST', '/faults', {
      path: '/v1/groups/grp_analytics/connectors',
      method: 'GET',
      status: 429,
      retry_after: 1,
      times: 1,
    });
    expect(added.status).toBe(201);
    const r = await run(['connectors', 'grp_analytics', '--configuration', configuration]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toHaveLength(2 + 160);
    const shown = r.progress.filter((line): line is string => line !== undefined);
    expect(shown.length).toBeGreaterThan(0);
    for (const line of shown) expect(line).toMatch(/^ {2}listing… \d[\d,]* connectors$/);
    expect(r.progress.at(-1)).toBeUndefined();
  });

  it('a listing that fails clears its progress line too', async () => {
    const r = await run(['connectors', 'grp_nope', '--configuration', configuration]);
    expect(r.code).toBe(1);
    expect(r.progress).toEqual([undefined]);
  });

  it('--schema filters; --cursor fetches one page and tells the next cursor', async () => {
    const first = await run(
      ['connectors', 'grp_analytics', '--configuration', configuration, '--limit', '10', '--cursor', ''],
      true,
    );
    const doc = JSON.parse(first.out);
    expect(doc.items).toHaveLength(10);
    expect(doc.next_cursor).toBeTypeOf('string');
    const table = await run([
      'connectors',
      'grp_analytics',
      '--configuration',
      configuration,
      '--limit',
      '10',
      '--cursor',
      doc.next_cursor,
    ]);
    expect(table.err).toMatch(/more: --cursor \S+/);
    const schema = doc.items[3].schema;
    const filtered = await run(
      ['connectors', 'grp_analytics', '--configuration', configuration, '--schema', schema],
      true,
    );
    expect(JSON.parse(filtered.out).items.map((c: { schema: string }) => c.schema)).toEqual([schema]);
  });

  it('never prints a connect-card token, in the table or in --json', async () => {
    const tokens = [...emu.store.connectors()].filter((c) => c.connect_card?.token).map((c) => c.connect_card!.token);
    expect(tokens.length).toBeGreaterThan(0);
    for (const group of ['grp_analytics', 'grp_marketing', 'grp_finance', 'grp_operations', 'grp_sandbox']) {
      for (const json of [true, false]) {
        const r = await run(['connectors', group, '--configuration', configuration], json);
        for (const token of tokens) expect(r.all).not.toContain(token);
      }
    }
    const r = await run(['connectors', 'grp_analytics', '--configuration', configuration], true);
    expect(r.out).toContain('"token":"<CONNECT_TOKEN>"');
  });

  it('an unknown group: exit 1 and one line naming it', async () => {
    const r = await run(['connectors', 'grp_nope', '--configuration', configuration]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^error \[not_found\]: GET http:\/\/127\.0\.0\.1:\d+\/v1\/groups\/grp_nope\/connectors: group 'grp_nope' not found/,
    );
  });

  for (const limit of ['0', '1001', 'abc', '1.5']) {
    it(`--limit ${limit}: exit 2 before any request`, async () => {
      const before = emu.requests;
      const r = await run(['connectors', 'grp_analytics', '--configuration', configuration, '--limit', limit]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('error [invalid_limit]: limit must be a whole number from 1 to 1000');
      expect(emu.requests).toBe(before);
    });
  }
});

describe('pipeline upgrade', () => {
  it('prints the service message; an unknown package is exit 1', async () => {
    const ok = await run(['upgrade', 'tp_hubspot_funnel', '--configuration', configuration]);
    expect(ok.code).toBe(0);
    expect(ok.out).toBe('Success: Transformation package has been upgraded');
    expect((await run(['upgrade', 'tp_nope', '--configuration', configuration])).code).toBe(1);
  });
});

describe('credentials and usage', () => {
  it('a wrong secret: exit 3, one line naming where the secret came from, no form of it anywhere', async () => {
    const wrong = 'wr0ng-api-secret-77';
    process.env.CONNECTOR_AUTH_BASE_URL = emu.pipelineUrl;
    process.env.CONNECTOR_AUTH_API_KEY = emu.credentials.apiKey;
    process.env.CONNECTOR_AUTH_API_SECRET = wrong;
    const r = await run(['groups']);
    expect(r.code).toBe(3);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toContain('rejected the API key and secret (HTTP 401 AuthFailed');
    expect(r.err).toContain("'CONNECTOR_AUTH_API_SECRET'");
    expectNoLeak(r.all, wrong, emu.credentials.apiKey);
  });

  it('a missing secret: exit 2 naming the key and the variable', async () => {
    process.env.CONNECTOR_AUTH_BASE_URL = emu.pipelineUrl;
    process.env.CONNECTOR_AUTH_API_KEY = emu.credentials.apiKey;
    const r = await run(['groups']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      "missing the API secret: set 'password' in the configuration file or the environment variable CONNECTOR_AUTH_API_SECRET",
    );
  });

  it('bad usage is exit 2; --help is exit 0', async () => {
    expect((await run(['frobnicate'])).code).toBe(2);
    expect((await run(['connectors'])).code).toBe(2);
    expect((await run(['groups', 'extra'])).code).toBe(2);
    expect((await run(['groups', '--nope'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('connector-auth pipeline connectors <group_id>');
  });
});
