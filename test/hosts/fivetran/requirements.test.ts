import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, startCli } from '../../helpers/cli.js';
import { start as startFlakyApi, type FlakyApi } from '../../peers/flaky-api.js';
import { connectorClient, plain, startServe, type ServeProcess } from './support.js';

/**
 * The partner SDK's requirements (fivetran/fivetran_partner_sdk: README.md, development-guide.md,
 * source-connector-development-guide.md) that can be checked from outside a running `serve`, and
 * that no other test checks. docs/hosts/fivetran.md lists every requirement with the test that
 * checks it, these and the others (listen-addresses, rest, lifecycle, user-alerts, protocol-files,
 * record-encoding).
 *
 * A connector of its own against an API that fails in passing (test/peers/flaky-api.ts): it logs
 * at each level and prints, reads one path (retried when the API fails transiently), writes rows of
 * 200 KB, checkpoints and, when asked, fails after its checkpoint.
 */

const TOKEN = 'Req-T0ken/+rest?&x=1';
const CONNECTOR = `
import { defineConnector, z } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  configuration: z.object({ rows: z.string().default('12'), fail: z.string().default('false') }),
  schema: () => [{ table: 'rows', primary_key: ['id'], columns: { id: 'LONG', tries: 'LONG', big: 'STRING' } }],
  async update({ configuration, state, source, op, log }) {
    log.info('the connector starts');
    log.warning('the connector warns');
    console.error('the connector prints an error');
    const reply = await source.json<{ tries: number }>('data');
    const big = 'x'.repeat(200_000);
    for (let id = 1; id <= Number(configuration.rows); id++) await op.upsert('rows', { id, tries: reply.tries, big });
    await op.checkpoint({ state_bytes: JSON.stringify(state).length });
    if (configuration.fail === 'true') throw new Error('the connector broke after its checkpoint');
  },
});
`;

let root: string;
let project: string;
let api: FlakyApi;
let serve: ServeProcess;
let client: ReturnType<typeof connectorClient>;

beforeAll(async () => {
  [root, api] = await Promise.all([mkdtemp(join(tmpdir(), 'connector-auth-requirements-')), startFlakyApi(TOKEN)]);
  project = await initTemplate(root, 'p', 'rest-api');
  await writeFile(join(project, 'connector.ts'), CONNECTOR);
  serve = await startServe(project);
  client = connectorClient(serve.port);
});
afterAll(async () => {
  client?.close();
  await serve?.stop();
  await api?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (extra: Record<string, string> = {}) => ({
  auth_method: 'bearer',
  token: TOKEN,
  base_url: api.url,
  probe_path: 'health',
  ...extra,
});

describe('the partner SDK requirements, checked from outside serve', () => {
  it('"Accept a --port argument that takes an integer": a port that is not one is refused, exit 2', async () => {
    const run = await cli(['serve', project, '--port', 'fifty']);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/--port/);
  });

  it('"Start up your connector running on port 50051": without --port serve listens on 50051', async (context) => {
    // Another run on this machine may hold 50051 (the tests of another checkout): then this cannot be seen.
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
        .once('error', () => resolve(false))
        .listen(50051, '::', () => probe.close(() => resolve(true)));
    });
    if (!free) return context.skip('port 50051 is in use on this machine');
    const run = startCli(['serve', project]);
    try {
      // Until it says where it listens, or ends.
      await new Promise<void>((resolve) => {
        const check = () => /listening on/.test(run.output().stdout) && resolve();
        run.child.stdout.on('data', check);
        void run.done.then(() => resolve());
        check();
      });
      expect(run.output().stdout).toMatch(/listening on \[::\]:50051\b/);
      const answer = connectorClient(50051);
      expect((await answer.configurationForm()).fields).toBeDefined();
      answer.close();
    } finally {
      run.child.kill('SIGTERM');
      await run.done;
    }
  });

  it('"implements all required gRPC calls": ConfigurationForm, Test, Schema and Update each answer', async () => {
    expect((await client.configurationForm()).fields).toEqual(expect.any(Array));
    expect(await client.test(configuration())).toMatchObject({ success: true });
    expect((await client.schema(configuration())) as object).toHaveProperty('without_schema');
    const update = await client.update({ configuration: configuration({ rows: '1' }) });
    expect(update.error).toBeUndefined();
    expect(update.records).toHaveLength(1);
  });

  it('"retry any transient errors internally": a 503 and a 429 from the source do not reach Fivetran', async () => {
    const before = api.requests.filter((r) => r.path === '/data').length;
    api.failNext('/data', [
      { status: 503, retryAfter: '0' },
      { status: 429, retryAfter: '0' },
    ]);
    const update = await client.update({ configuration: configuration({ rows: '1' }) });
    expect(update.error).toBeUndefined();
    // The third try answered: the record holds how many requests of /data the API counted.
    expect(plain(update.records[0]!).tries).toEqual({ long: String(before + 3) });
  });

  it('"capture and relay a clear message when the account permissions are not sufficient": a 403 names the permission and the key', async () => {
    api.failNext('/health', [{ status: 403 }]);
    const test = await client.test(configuration());
    expect(test.failure).toMatch(/403/);
    expect(test.failure).toMatch(/permission/);
    expect(test.failure).toMatch(/'token'/);
  });

  it('"use gRPC built-in error mechanism" and "retried from the last good known spot": a failing Update ends with a status after its checkpoint', async () => {
    const update = await client.update({ configuration: configuration({ rows: '2', fail: 'true' }) });
    expect(update.checkpoints).toHaveLength(1);
    expect(update.error?.code).toBe(13);
    expect(update.error?.details).toMatch(/the connector broke after its checkpoint/);
    // The server is still there for the next call: the failure was a status, not a crash.
    expect((await client.configurationForm()).fields).toEqual(expect.any(Array));
  });

  it('"maximum supported gRPC message size is 128 MB ... both inbound and outbound": an UpdateRequest of 5 MiB is taken', async () => {
    const state = { padding: 'p'.repeat(5 * 1024 * 1024) };
    const update = await client.update({
      configuration: configuration({ rows: '1' }),
      state_json: JSON.stringify(state),
    });
    expect(update.error).toBeUndefined();
    expect(update.checkpoints).toEqual([{ state_bytes: JSON.stringify(state).length }]);
  });

  it('records go in Records messages of at most 1 MiB (12 rows of 200 KB: at least 3 messages)', async () => {
    const update = await client.update({ configuration: configuration() });
    expect(update.error).toBeUndefined();
    const batches = update.messages.filter((m) => m.records).map((m) => m.records!.records);
    expect(batches.flat()).toHaveLength(12);
    expect(batches.length).toBeGreaterThanOrEqual(3);
    // The JSON of what arrived is longer than its protobuf encoding: under 1 MiB here, under it on the wire.
    for (const batch of batches) expect(JSON.stringify(batch).length).toBeLessThanOrEqual(1024 * 1024);
  });

  it('"Write logs out to STDOUT in the following JSON format ... message-origin can be sdk_connector": every line, the connector\'s own told apart by their message', async () => {
    await serve.until(/the connector prints an error/);
    const lines = serve.lines();
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(['level', 'message', 'message-origin']);
      expect(['INFO', 'WARNING', 'SEVERE']).toContain(line.level);
      expect(line['message-origin']).toBe('sdk_connector');
    }
    const connector = lines.filter((l) => l.message.startsWith('[connector] ')).map((l) => `${l.level} ${l.message}`);
    expect(connector).toEqual(
      expect.arrayContaining([
        'INFO [connector] the connector starts',
        'WARNING [connector] the connector warns',
        'SEVERE [connector] the connector prints an error',
      ]),
    );
    // connector-auth's own lines carry no such prefix.
    expect(lines.some((l) => /^sync done/.test(l.message) || /probe succeeded/.test(l.message))).toBe(true);
  });
});
