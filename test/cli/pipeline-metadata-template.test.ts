import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';
import { emulator, expectNoLeak } from '../emulator/support.js';

/**
 * Through the built CLI (`npm test` builds first), as a user runs it: the pipeline-metadata template
 * synced by `debug` from the emulator, and the `pipeline` command behind the real redacting output gate.
 */

const TEMPLATE = fileURLToPath(new URL('../../templates/pipeline-metadata', import.meta.url));
let emu: RunningEmulator;
let root: string;

beforeAll(async () => {
  emu = await emulator();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-pipeline-template-'));
});
afterAll(async () => {
  await emu.stop();
  await rm(root, { recursive: true, force: true });
});

async function project(name: string, password: string): Promise<string> {
  const dir = join(root, name);
  await cp(TEMPLATE, dir, { recursive: true });
  await writeFile(
    join(dir, 'configuration.json'),
    JSON.stringify({
      auth_method: 'basic',
      base_url: emu.pipelineUrl,
      probe_path: 'v1/groups?limit=1',
      username: emu.credentials.apiKey,
      password,
    }),
  );
  return dir;
}

describe('templates/pipeline-metadata', () => {
  it('debug syncs every group and connector into the warehouse; no connect-card token lands there', async () => {
    const dir = await project('good', emu.credentials.apiSecret);
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`Upserts\\s+\\|\\s+${emu.store.groupCount + emu.store.connectorCount}`));
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
    const connection = await db.connect();
    try {
      const rows = (
        await connection.runAndReadAll(
          "SELECT (SELECT count(*) FROM tester.groups), (SELECT count(*) FROM tester.connectors), (SELECT count(*) FROM tester.connectors WHERE setup_state = 'broken')",
        )
      ).getRows();
      expect(rows[0]!.map(Number)).toEqual([
        6,
        250,
        [...emu.store.connectors()].filter((c) => c.status.setup_state === 'broken').length,
      ]);
      const dump = JSON.stringify(
        (await connection.runAndReadAll('SELECT * FROM tester.connectors')).getRowsJS(),
        (_, v) => (typeof v === 'bigint' ? String(v) : v),
      );
      for (const c of emu.store.connectors()) if (c.connect_card) expect(dump).not.toContain(c.connect_card.token);
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });

  it('a wrong password: exit 3 before update(), one line, the password nowhere', async () => {
    const wrong = 'wrong-demo-password-551';
    const dir = await project('bad', wrong);
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("check 'password'");
    expectNoLeak(run.stdout + run.stderr, wrong, emu.credentials.apiKey);
  });
});

describe('connector-auth pipeline (built CLI)', () => {
  it('lists groups from environment variables; a wrong secret is exit 3 without a leak', async () => {
    const env = {
      CONNECTOR_AUTH_BASE_URL: emu.pipelineUrl,
      CONNECTOR_AUTH_API_KEY: emu.credentials.apiKey,
      CONNECTOR_AUTH_API_SECRET: emu.credentials.apiSecret,
    };
    const ok = await cli(['pipeline', 'groups', '--json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).items).toHaveLength(6);
    const wrong = 'wrong-secret-from-env-8080';
    const bad = await cli(['pipeline', 'connectors', 'grp_finance'], {
      env: { ...env, CONNECTOR_AUTH_API_SECRET: wrong },
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expectNoLeak(bad.stdout + bad.stderr, wrong, emu.credentials.apiKey);
  });
});
