import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leakForms } from '../../helpers/cli.js';
import { start, type HttpApiPeer } from '../../peers/http-api.js';
import { connectorClient, plain, startServe, type ServeProcess } from './support.js';

/**
 * What a server does beyond one call: values of declared column types, a connector that prints its
 * token carelessly, calls side by side, a client that reads slowly, and SIGTERM. The connector
 * authenticates to a real loopback API (Bearer) and then makes its rows itself, so a test can ask
 * for many, and for pauses between checkpoints.
 */

const TOKEN = 'tok_lifecycle_S3cret/+value';
const OTHER = 'tok_lifecycle_Other/+value';

const CONNECTOR = `import { defineConnector, z } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  configuration: z.object({
    rows: z.string().default('10').transform(Number),
    checkpoint_every: z.string().default('5').transform(Number),
    pause_ms: z.string().default('0').transform(Number),
    careless: z.string().default('false'),
  }),
  schema: () => [
    {
      table: 'events',
      primary_key: ['id'],
      columns: { id: 'LONG', at: 'UTC_DATETIME', day: 'NAIVE_DATE', amount: { type: 'DECIMAL', precision: 10, scale: 2 }, note: 'STRING', payload: 'JSON', flag: 'BOOLEAN', small: 'SHORT', ratio: 'FLOAT' },
    },
  ],
  async update({ configuration, state, op, log }) {
    if (configuration.careless === 'true') {
      log.info('the token is ' + configuration.token);
      console.log('configuration token:', configuration.token, Buffer.from(configuration.token).toString('base64'));
      console.error(JSON.stringify({ token: configuration.token }));
      console.warn(encodeURIComponent(configuration.token));
    }
    let next = typeof state.next === 'number' ? state.next : 0;
    while (next < configuration.rows) {
      await op.upsert('events', {
        id: next,
        at: new Date(Date.UTC(2024, 0, 1) + next * 1000),
        day: '2024-02-0' + ((next % 9) + 1),
        amount: (next * 1.25).toFixed(2),
        note: 'row ' + next,
        payload: { n: next, tags: ['a', 'b'] },
        flag: next % 2 === 0,
        small: String(next % 100),
        ratio: 0.5,
      });
      next++;
      if (next % configuration.checkpoint_every === 0) {
        await op.checkpoint({ next });
        log.info('progress ' + next);
        if (configuration.pause_ms > 0) await new Promise((resolve) => setTimeout(resolve, configuration.pause_ms));
      }
    }
    if (next % configuration.checkpoint_every !== 0) await op.checkpoint({ next });
  },
});
`;

let peer: HttpApiPeer;
let root: string;
let project: string;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN } }),
    mkdtemp(join(tmpdir(), 'connector-auth-serve-lifecycle-')),
  ]);
  project = join(root, 'events');
  await mkdir(project);
  await writeFile(join(project, 'connector.ts'), CONNECTOR);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

async function server(extra: string[] = []) {
  const serve = await startServe(project, extra);
  servers.push(serve);
  return { serve, client: connectorClient(serve.port) };
}

const configuration = (extra: Record<string, string> = {}, token = TOKEN) => ({
  auth_method: 'bearer',
  token,
  base_url: peer.url,
  probe_path: 'health',
  ...extra,
});

const progress = (s: ServeProcess) =>
  Math.max(
    0,
    ...s
      .lines()
      .map((l) => /^progress (\d+)$/.exec(l.message))
      .map((m) => (m ? Number(m[1]) : 0)),
  );

describe('serve: calls, clients and signals', () => {
  it('values of declared types go as those types; Schema says them', async () => {
    const { client } = await server();
    const schema = (await client.schema(configuration())) as {
      without_schema: { tables: { columns: Record<string, unknown>[] }[] };
    };
    expect(schema.without_schema.tables[0]!.columns).toEqual([
      { name: 'id', type: 'LONG', primary_key: true },
      { name: 'at', type: 'UTC_DATETIME', primary_key: false },
      { name: 'day', type: 'NAIVE_DATE', primary_key: false },
      {
        name: 'amount',
        type: 'DECIMAL',
        primary_key: false,
        params: { decimal: { precision: 10, scale: 2 }, params: 'decimal' },
        _params: 'params',
      },
      { name: 'note', type: 'STRING', primary_key: false },
      { name: 'payload', type: 'JSON', primary_key: false },
      { name: 'flag', type: 'BOOLEAN', primary_key: false },
      { name: 'small', type: 'SHORT', primary_key: false },
      { name: 'ratio', type: 'FLOAT', primary_key: false },
    ]);
    const result = await client.update({ configuration: configuration({ rows: '3' }) });
    expect(result.error).toBeUndefined();
    expect(plain(result.records[1]!)).toEqual({
      id: { long: '1' },
      at: { utc_datetime: Date.UTC(2024, 0, 1, 0, 0, 1) },
      day: { naive_date: Date.UTC(2024, 1, 2) },
      amount: { decimal: '1.25' },
      note: { string: 'row 1' },
      payload: { json: '{"n":1,"tags":["a","b"]}' },
      flag: { bool: false },
      small: { short: 1 },
      ratio: { float: 0.5 },
    });
    expect(result.checkpoints).toEqual([{ next: 3 }]);
  });

  it('a connector that prints its token (log, console.log, console.error, console.warn, base64, URL-encoded): nothing shows it, every stdout line is JSON', async () => {
    const { serve, client } = await server();
    const result = await client.update({ configuration: configuration({ rows: '2', careless: 'true' }) });
    expect(result.error).toBeUndefined();
    await serve.until(/sync done/);
    const lines = serve.lines();
    const connector = lines.filter((l) => l.message.startsWith('[connector] ')).map((l) => `${l.level} ${l.message}`);
    expect(connector).toEqual(
      expect.arrayContaining([
        'INFO [connector] the token is <redacted:token>',
        'INFO [connector] configuration token: <redacted:token> <redacted:token>',
        'SEVERE [connector] {"token":"<redacted:token>"}',
        'WARNING [connector] <redacted:token>',
      ]),
    );
    const printed = serve.stdout() + serve.stderr();
    for (const form of leakForms(TOKEN)) expect(printed).not.toContain(form);
  });

  it('calls side by side keep their own configuration and secrets: two Updates, a failing Test and a Schema at once', async () => {
    const { serve, client } = await server();
    const [slow, quick, test, schema] = await Promise.all([
      client.update({ configuration: configuration({ rows: '60', checkpoint_every: '10', pause_ms: '60' }) }),
      client.update({ configuration: configuration({ rows: '7', checkpoint_every: '7' }) }),
      client.test(configuration({}, OTHER)),
      client.schema(configuration()),
    ]);
    expect(slow.error).toBeUndefined();
    expect(slow.records).toHaveLength(60);
    expect(slow.checkpoints.at(-1)).toEqual({ next: 60 });
    expect(quick.error).toBeUndefined();
    expect(quick.records).toHaveLength(7);
    expect(quick.checkpoints).toEqual([{ next: 7 }]);
    expect(test.failure).toMatch(/401.*'token'/);
    expect(schema.response).toBe('without_schema');
    const printed = serve.stdout() + serve.stderr();
    for (const form of [...leakForms(TOKEN), ...leakForms(OTHER)]) expect(printed).not.toContain(form);
  });

  it('a client that stops reading stops the connector: the server buffers a few batches, not the sync', async () => {
    const { serve, client } = await server();
    const stream = client.updateStream({ configuration: configuration({ rows: '300000', checkpoint_every: '1000' }) });
    let received = 0;
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('data', (m: { records?: { records: unknown[] } }) => (received += m.records?.records.length ?? 0));
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    stream.pause();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // Flow control stopped the bytes; the batch that found the stream full waits, and update() with it.
    const whilePaused = progress(serve);
    expect(whilePaused).toBeLessThanOrEqual(20000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(progress(serve)).toBe(whilePaused);
    stream.resume();
    await ended;
    expect(received).toBe(300000);
    await serve.until(/progress 300000/);
  }, 120_000);

  it('a client that cancels: the connector stops at its next operation and the server says so', async () => {
    const { serve, client } = await server();
    const stream = client.updateStream({
      configuration: configuration({ rows: '100000', checkpoint_every: '100', pause_ms: '50' }),
    });
    stream.on('data', () => {});
    stream.on('error', () => {});
    await serve.until(/progress 200\b/);
    stream.cancel();
    await serve.until(/Update cancelled by the client after \d+ records/);
    const stoppedAt = progress(serve);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(progress(serve)).toBe(stoppedAt);
    expect(stoppedAt).toBeLessThan(100000);
  });

  it('a connector without schema(): Schema is not supported, the records carry their columns', async () => {
    const bare = join(root, 'bare');
    await mkdir(bare);
    await writeFile(
      join(bare, 'connector.ts'),
      "import { defineConnector } from 'connector-auth';\nexport default defineConnector({ source: 'rest', async update({ op }) { await op.upsert('t', { id: 1, at: new Date(0) }); await op.checkpoint({ done: true }); } });\n",
    );
    const serve = await startServe(bare);
    servers.push(serve);
    const client = connectorClient(serve.port);
    expect(await client.schema(configuration())).toEqual({
      response: 'schema_response_not_supported',
      schema_response_not_supported: true,
    });
    const result = await client.update({ configuration: configuration() });
    expect(result.records.map(plain)).toEqual([{ id: { long: '1' }, at: { utc_datetime: 0 } }]);
    expect(result.checkpoints).toEqual([{ done: true }]);
  });

  it('SIGTERM: no new calls, the running Update ends at its next checkpoint (UNAVAILABLE, resumable), exit 0', async () => {
    const { serve, client } = await server();
    const stream = client.update({
      configuration: configuration({ rows: '1000', checkpoint_every: '50', pause_ms: '300' }),
    });
    await serve.until(/progress 50\b/);
    serve.child.kill('SIGTERM');
    const [result, code] = await Promise.all([stream, serve.exited]);
    expect(code).toBe(0);
    expect(result.error?.code).toBe(14);
    expect(result.error?.details).toMatch(/shutting down.*stopped after its checkpoint/);
    // The last message is the checkpoint the stop waited for, and it covers every record sent.
    const last = result.messages.at(-1)!;
    expect(last.checkpoint).toBeDefined();
    expect(result.checkpoints.at(-1)).toEqual({ next: result.records.length });
    expect(result.records.length).toBeGreaterThanOrEqual(100);
    expect(result.records.length).toBeLessThan(1000);
    // A call after the stop finds no server.
    await expect(client.test(configuration())).rejects.toMatchObject({ code: 14 });
    expect(serve.lines().map((l) => l.message)).toEqual(expect.arrayContaining(['SIGTERM received', 'stopped']));
  });

  it('a second SIGTERM while the first waits for a checkpoint ends the process at once, before the grace period', async () => {
    const { serve, client } = await server();
    // After its first checkpoint the connector waits a minute: the stop has no checkpoint to end at.
    const stream = client.update({
      configuration: configuration({ rows: '1000', checkpoint_every: '50', pause_ms: '60000' }),
    });
    await serve.until(/progress 50\b/);
    serve.child.kill('SIGTERM');
    await serve.until(/SIGTERM received/);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBeNull();
    expect(serve.child.signalCode).toBe('SIGTERM');
    expect(serve.stdout()).not.toMatch(/are cancelled/);
    expect((await stream).error).toBeDefined();
  });
});
