import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// internals: the command itself, and cli/'s error printer (cli/ is the entry point and has no door)
import command from '../../src/cli/commands/interfaces/webhooks.js';
import { printError } from '../../src/cli/print-error.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { captureIO, control, emulator, expectNoLeak } from '../emulator/support.js';

/** `connector-auth webhooks …` in-process against the emulator, with the exit codes main returns. */

let emu: RunningEmulator;
let dir: string;
let bearerFile: string;
let basicFile: string;
const ENV = [
  'CONNECTOR_AUTH_WEBHOOK_BASE_URL',
  'CONNECTOR_AUTH_BASE_URL',
  'CONNECTOR_AUTH_WEBHOOK_TOKEN',
  'CONNECTOR_AUTH_WEBHOOK_AUTH_METHOD',
  'CONNECTOR_AUTH_API_KEY',
  'CONNECTOR_AUTH_API_SECRET',
] as const;

beforeAll(async () => {
  emu = await emulator();
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-webhooks-cli-'));
  bearerFile = join(dir, 'bearer.json');
  basicFile = join(dir, 'basic.json');
  await writeFile(
    bearerFile,
    JSON.stringify({ webhook_base_url: emu.webhookUrl, webhook_token: emu.credentials.webhookToken }),
  );
  await writeFile(
    basicFile,
    JSON.stringify({
      base_url: emu.webhookUrl,
      webhook_auth_method: 'basic',
      username: emu.credentials.webhookUsername,
      password: emu.credentials.webhookPassword,
    }),
  );
});
afterAll(async () => {
  await emu.stop();
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const name of ENV) delete process.env[name];
  await control(emu, 'PUT', '/settings', { webhook_feature_available: true });
});

async function run(args: string[], json = false) {
  const io = captureIO(json);
  let code: number;
  try {
    code = await command.run(args, io);
  } catch (error) {
    code = printError(error, io);
  }
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n'), all: io.text() };
}

describe('webhooks list | get | delete', () => {
  it('list prints a table; no events reads (all)', async () => {
    const r = await run(['list', '--configuration', bearerFile]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ID\s+\| NAME/);
    expect(r.out).toMatch(/2\s+\| audit everything\s+\| \(all\)\s+\| https:\/\/audit\.example\.com\/ingest/);
  });

  it('get prints the record; --json the document', async () => {
    const r = await run(['get', '1', '--configuration', bearerFile], true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).webhook).toMatchObject({ id: 1, name: 'on-call alerts' });
  });

  it('delete, then not found (exit 1)', async () => {
    const e = await emulator();
    const file = join(dir, 'fresh.json');
    await writeFile(
      file,
      JSON.stringify({ webhook_base_url: e.webhookUrl, webhook_token: e.credentials.webhookToken }),
    );
    try {
      const deleted = await run(['delete', '3', '--configuration', file]);
      expect(deleted.code).toBe(0);
      expect(deleted.out).toBe('deleted webhook 3');
      const again = await run(['delete', '3', '--configuration', file]);
      expect(again.code).toBe(1);
      expect(again.err).toContain('error [not_found]: webhook 3 not found');
      expect((await run(['get', '3', '--configuration', file])).code).toBe(1);
    } finally {
      await e.stop();
    }
  });

  it('--auth basic (or webhook_auth_method basic in the file) uses HTTP Basic', async () => {
    expect((await run(['list', '--configuration', basicFile])).code).toBe(0);
    process.env.CONNECTOR_AUTH_WEBHOOK_BASE_URL = emu.webhookUrl;
    process.env.CONNECTOR_AUTH_API_KEY = emu.credentials.webhookUsername;
    process.env.CONNECTOR_AUTH_API_SECRET = emu.credentials.webhookPassword;
    expect((await run(['list', '--auth', 'basic'])).code).toBe(0);
    expect((await run(['list', '--auth', 'digest'])).code).toBe(2);
  });

  it('the token from the environment', async () => {
    process.env.CONNECTOR_AUTH_BASE_URL = emu.webhookUrl;
    process.env.CONNECTOR_AUTH_WEBHOOK_TOKEN = emu.credentials.webhookToken;
    expect((await run(['get', '2'])).code).toBe(0);
  });
});

describe('errors', () => {
  it('a wrong token: exit 3, one line, no form of it', async () => {
    const wrong = 'wrong-webhook-token-31337';
    process.env.CONNECTOR_AUTH_BASE_URL = emu.webhookUrl;
    process.env.CONNECTOR_AUTH_WEBHOOK_TOKEN = wrong;
    const r = await run(['list']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /^error \[http_401\]: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/webhooks rejected the credentials/,
    );
    expect(r.err).toContain("'CONNECTOR_AUTH_WEBHOOK_TOKEN'");
    expectNoLeak(r.all, wrong);
  });

  it('feature not available: exit 3 with the service message', async () => {
    await control(emu, 'PUT', '/settings', { webhook_feature_available: false });
    const r = await run(['list', '--configuration', bearerFile]);
    expect(r.code).toBe(3);
    expect(r.err).toContain('error [feature_not_available]');
    expect(r.err).toContain("The feature you're trying to use is not available for your organization");
  });

  it('the service reports an error: exit 4', async () => {
    await control(emu, 'POST', '/faults', { path: '/api/v1/webhooks', status: 200, body: { status: 'error' } });
    const r = await run(['list', '--configuration', bearerFile]);
    expect(r.code).toBe(4);
    expect(r.err).toContain('the webhook service reported an error for list');
  });

  for (const id of ['abc', '1.5', '-2']) {
    it(`webhook id ${id}: exit 2 before any request`, async () => {
      const before = emu.requests;
      const r = await run(['get', id, '--configuration', bearerFile]);
      expect(r.code).toBe(2);
      expect(emu.requests).toBe(before);
    });
  }

  it('a missing token: exit 2 naming webhook_token and the variable', async () => {
    const file = join(dir, 'no-token.json');
    await writeFile(file, JSON.stringify({ webhook_base_url: emu.webhookUrl }));
    const r = await run(['list', '--configuration', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("'webhook_token'");
    expect(r.err).toContain('CONNECTOR_AUTH_WEBHOOK_TOKEN');
  });
});
