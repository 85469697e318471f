import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { closedPort, start, type HttpApiPeer } from '../../peers/http-api.js';
import { airbyte, configuredCatalog, expectNoSecretOutsideControl, jsonFile, savedState } from './support.js';

/**
 * `connector-auth airbyte` on the rest-api template, through the built CLI, against a real HTTP API
 * (test/peers/http-api.ts: Bearer, 25 items in pages of 10). Every stdout line of every run is
 * checked against the published protocol schema by `airbyte()`.
 */

const TOKEN = 'Airbyte-T0ken/+rest?&x=1';
const WRONG = 'Wr0ng-T0ken/+rest?&y=2';
let peer: HttpApiPeer;
let root: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 25, pageSize: 10 }),
    mkdtemp(join(tmpdir(), 'connector-auth-airbyte-rest-')),
  ]);
});
afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const flat = (token = TOKEN, base = peer.url) => ({
  auth_method: 'bearer',
  token,
  base_url: base,
  probe_path: 'health',
  items_path: 'items',
});
let count = 0;
async function project(connector?: string): Promise<string> {
  const dir = await initTemplate(root, `p${++count}`, 'rest-api');
  if (connector) await writeFile(join(dir, 'connector.ts'), connector);
  return dir;
}
const config = (dir: string, value: unknown) => jsonFile(dir, 'airbyte-config.json', value);

describe('airbyte spec of a rest connector that offers every method the source accepts (no auth list)', () => {
  it('lists the signing methods too, their secrets marked', async () => {
    const dir = await initTemplate(root, `p${++count}`, 'rest-api', undefined, { auth: 'all' });
    const run = await airbyte(['spec', dir]);
    expect(run.code, run.stderr).toBe(0);
    const methods = run.messages[0]!.spec.connectionSpecification.properties.auth_method.oneOf as any[];
    expect(methods.map((m) => m.title)).toEqual(expect.arrayContaining(['digest', 'jwt_bearer', 'oauth1']));
    const jwt = methods.find((m) => m.title === 'jwt_bearer');
    expect(jwt.required).toEqual(['auth_method', 'jwt_issuer']);
    expect(jwt.properties.jwt_private_key).toMatchObject({ type: 'string', airbyte_secret: true });
    expect(jwt.properties.jwt_secret).toMatchObject({ airbyte_secret: true });
    const oauth1 = methods.find((m) => m.title === 'oauth1');
    expect(oauth1.properties.oauth1_token_secret).toMatchObject({ airbyte_secret: true });
    expect(oauth1.properties.oauth1_signature_method).toMatchObject({ enum: ['HMAC-SHA256', 'HMAC-SHA1'] });
    expect(methods.find((m) => m.title === 'digest').required).toEqual(['auth_method', 'username', 'password']);
  });
});

describe('airbyte spec / check / discover (rest-api template)', () => {
  it('spec: a JSON Schema of the configuration: auth_method a oneOf of the methods, secrets marked, defaults and choices', async () => {
    const dir = await project();
    const run = await airbyte(['spec', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.messages.map((m) => m.type)).toEqual(['SPEC']);
    const specification = run.messages[0]!.spec.connectionSpecification;
    expect(specification.required).toEqual(['auth_method', 'base_url']);
    const methods = specification.properties.auth_method.oneOf as any[];
    expect(methods.map((m) => m.title)).toContain('oauth2_refresh_token');
    const bearer = methods.find((m) => m.title === 'bearer');
    expect(bearer.required).toEqual(['auth_method', 'token']);
    expect(bearer.properties.auth_method).toMatchObject({ const: 'bearer' });
    expect(bearer.properties.token).toMatchObject({ type: 'string', airbyte_secret: true });
    const apiKey = methods.find((m) => m.title === 'api_key');
    expect(apiKey.properties.api_key_location).toMatchObject({ enum: ['header', 'query'], default: 'header' });
    expect(specification.properties.items_path).toMatchObject({ type: 'string', default: 'items' });
    expect(specification.properties.tls_ca_certificate).toMatchObject({ type: 'string', multiline: true });
    expect(specification.properties.tls_client_private_key).toMatchObject({ airbyte_secret: true });
    expect(specification.properties.timeout_seconds).toMatchObject({ default: '10' });
    expect(specification.properties.base_url).not.toHaveProperty('airbyte_secret');

    // The schema is one a validator compiles, and the nested configuration Airbyte's form saves passes it.
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    const validate = new Ajv({ strict: false }).compile(specification);
    expect(
      validate({ auth_method: { auth_method: 'bearer', token: TOKEN }, base_url: peer.url }),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(validate({ auth_method: { auth_method: 'bearer' }, base_url: peer.url })).toBe(false);
  });

  it('check: SUCCEEDED with the right token; FAILED naming the key with a wrong one, still exit 0; neither token printed', async () => {
    const dir = await project();
    const good = await airbyte(['check', dir, '--config', await config(dir, flat())]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.of('CONNECTION_STATUS')).toEqual([
      {
        type: 'CONNECTION_STATUS',
        connectionStatus: { status: 'SUCCEEDED', message: expect.stringContaining('probe succeeded') },
      },
    ]);
    const bad = await airbyte(['check', dir, '--config', await config(dir, flat(WRONG))]);
    expect(bad.code).toBe(0);
    const [status] = bad.of('CONNECTION_STATUS');
    expect(status!.connectionStatus.status).toBe('FAILED');
    expect(status!.connectionStatus.message).toContain("'token'");
    expect(bad.of('TRACE').filter((m) => m.trace.type === 'ERROR')).toEqual([]);
    for (const run of [good, bad]) expectNoSecretOutsideControl(run, [...leakForms(TOKEN), ...leakForms(WRONG)]);
  });

  it('check and discover with --config and --catalog saved by a Windows editor (a byte order mark first): read as JSON', async () => {
    const dir = await project();
    const withMark = async (name: string, value: unknown) => {
      const path = join(dir, name);
      await writeFile(path, `\uFEFF${JSON.stringify(value)}`);
      return path;
    };
    const check = await airbyte(['check', dir, '--config', await withMark('bom-config.json', flat())]);
    expect(check.of('CONNECTION_STATUS')[0]?.connectionStatus.status, check.stdout).toBe('SUCCEEDED');
    const catalog = await withMark('bom-catalog.json', configuredCatalog([{ name: 'items' }]));
    const read = await airbyte(['read', dir, '--config', await config(dir, flat()), '--catalog', catalog]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.of('RECORD').length).toBeGreaterThan(0);
  });

  it("check with Airbyte's nested form and non-string scalars: the method's keys flattened, a number taken as its text", async () => {
    const dir = await project();
    const nested = {
      auth_method: { auth_method: 'bearer', token: TOKEN },
      base_url: peer.url,
      probe_path: 'health',
      timeout_seconds: 5,
      allow_plain_http: false,
      scope: null,
    };
    const run = await airbyte(['check', dir, '--config', await config(dir, nested)]);
    expect(run.of('CONNECTION_STATUS')[0]?.connectionStatus.status, run.stdout).toBe('SUCCEEDED');
    const twice = await airbyte(['check', dir, '--config', await config(dir, { ...nested, token: WRONG })]);
    expect(twice.of('CONNECTION_STATUS')[0]?.connectionStatus.message).toContain("key 'token' is given twice");
    const list = await airbyte([
      'check',
      dir,
      '--config',
      await config(dir, { ...nested, probe_expect_status: [200] }),
    ]);
    expect(list.of('CONNECTION_STATUS')[0]?.connectionStatus.message).toContain(
      "key 'probe_expect_status' is an array",
    );
  });

  it('discover: one stream per table, its declared columns typed, its primary key, full refresh only (the template reads its list whole), the delete marker column', async () => {
    const dir = await project();
    const run = await airbyte(['discover', dir, '--config', await config(dir, flat())]);
    expect(run.code, run.stderr).toBe(0);
    const [catalog] = run.of('CATALOG');
    expect(catalog!.catalog.streams).toEqual([
      {
        name: 'items',
        json_schema: expect.objectContaining({
          type: 'object',
          properties: {
            id: { type: ['null', 'integer'] },
            name: { type: ['null', 'string'] },
            price: { type: ['null', 'number'] },
            in_stock: { type: ['null', 'boolean'] },
            updated_at: expect.objectContaining({ format: 'date-time' }),
            _ab_cdc_deleted_at: expect.objectContaining({ format: 'date-time' }),
          },
        }),
        supported_sync_modes: ['full_refresh'],
        source_defined_primary_key: [['id']],
      },
    ]);
  });
});

describe('airbyte read (rest-api template)', () => {
  it('RECORDs with emitted_at, a STREAM state per checkpoint, stream statuses around them; resumed from a mid-sync --state it reads only the pages after the saved cursor', async () => {
    const dir = await project();
    const cfg = await config(dir, flat());
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const first = await airbyte(['read', dir, '--config', cfg, '--catalog', catalog]);
    expect(first.code, first.stderr).toBe(0);
    const records = first.of('RECORD');
    expect(records.map((r) => r.record.data.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(
      records.every(
        (r) =>
          r.record.stream === 'items' &&
          Number.isInteger(r.record.emitted_at) &&
          r.record.emitted_at > Date.now() - 60_000,
      ),
    ).toBe(true);
    const states = first.of('STATE');
    // After each page with a next cursor, then the end of the list: the next sync reads it whole again.
    expect(states.map((s) => s.state.stream.stream_state.cursor)).toEqual(['10', '20', null]);
    expect(states.map((s) => s.state.sourceStats.recordCount)).toEqual([10, 10, 5]);
    expect(states[0]!.state).toMatchObject({ type: 'STREAM', stream: { stream_descriptor: { name: 'items' } } });
    // Each STATE follows the records it covers, inside the stream's STARTED, RUNNING and COMPLETE.
    expect(
      first.messages
        .filter((m) => m.type === 'RECORD' || m.type === 'STATE' || m.trace?.type === 'STREAM_STATUS')
        .map((m) => (m.type === 'TRACE' ? m.trace.stream_status.status : m.type))
        .join(','),
    ).toBe(
      [
        'STARTED',
        'RUNNING',
        ...Array(10).fill('RECORD'),
        'STATE',
        ...Array(10).fill('RECORD'),
        'STATE',
        ...Array(5).fill('RECORD'),
        'STATE',
        'COMPLETE',
      ].join(','),
    );

    // A sync interrupted after its second page resumes from that page's STATE.
    const state = await jsonFile(dir, 'state.json', [states[1]!.state]);
    const resumed = await airbyte(['read', dir, '--config', cfg, '--catalog', catalog, '--state', state]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.of('RECORD').map((r) => r.record.data.id)).toEqual([21, 22, 23, 24, 25]);
    // A sync that ended reads the list whole the next time.
    const ended = await jsonFile(dir, 'ended.json', savedState(first));
    const again = await airbyte(['read', dir, '--config', cfg, '--catalog', catalog, '--state', ended]);
    expect(again.of('RECORD')).toHaveLength(25);

    // A full refresh reads the table whole, whatever the state says.
    const full = await jsonFile(dir, 'full.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }]));
    const refreshed = await airbyte(['read', dir, '--config', cfg, '--catalog', full, '--state', state]);
    expect(refreshed.of('RECORD')).toHaveLength(25);
    expect(
      refreshed
        .of('LOG')
        .map((l) => l.log.message)
        .join('\n'),
    ).toContain("starting from an empty state: 'items' is configured full_refresh");

    // A stream the catalog does not select sends nothing.
    const other = await jsonFile(dir, 'other.json', configuredCatalog([{ name: 'orders' }]));
    const none = await airbyte(['read', dir, '--config', cfg, '--catalog', other]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.of('RECORD')).toEqual([]);
    expect(none.of('LOG').some((l) => l.log.level === 'WARN' && l.log.message.includes("'orders'"))).toBe(true);
    for (const run of [first, resumed, again, refreshed, none]) expectNoSecretOutsideControl(run, leakForms(TOKEN));
  });

  it('failures are one TRACE error each: rejected token (config_error, exit 3), unreachable API (system_error, exit 4), no catalog (config_error, exit 2)', async () => {
    const dir = await project();
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const wrong = await airbyte(['read', dir, '--config', await config(dir, flat(WRONG)), '--catalog', catalog]);
    const down = await airbyte([
      'read',
      dir,
      '--config',
      await jsonFile(dir, 'down.json', flat(TOKEN, `http://127.0.0.1:${await closedPort()}`)),
      '--catalog',
      catalog,
    ]);
    const uncatalogued = await airbyte(['read', dir, '--config', await jsonFile(dir, 'good.json', flat())]);
    expect([wrong.code, down.code, uncatalogued.code]).toEqual([3, 4, 2]);
    const errors = [wrong, down, uncatalogued].map((run) =>
      run
        .of('TRACE')
        .filter((m) => m.trace.type === 'ERROR')
        .map((t) => t.trace.error),
    );
    expect(errors.map((e) => e.map((x) => x.failure_type))).toEqual([
      ['config_error'],
      ['system_error'],
      ['config_error'],
    ]);
    expect(errors[0]![0]!.message).toContain("'token'");
    expect(errors[1]![0]!.message).toContain("'base_url'");
    expect(errors[2]![0]!.message).toContain('--catalog');
    for (const run of [wrong, down, uncatalogued]) {
      expect(run.of('RECORD')).toEqual([]);
      expectNoSecretOutsideControl(run, [...leakForms(TOKEN), ...leakForms(WRONG)]);
    }
  });

  it("the connector's own prints become LOG lines, redacted; op.delete is a RECORD with _ab_cdc_deleted_at; a failure in update() is a system_error", async () => {
    const dir = await project(`
import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'], columns: { id: 'LONG', name: 'STRING' } }],
  async update({ configuration, source, op, state }) {
    console.log('careless: the token is', configuration.token, 'and the raw one', ${JSON.stringify(TOKEN)});
    process.stdout.write('no line break at the end');
    const page = await source.json<{ items: { id: number; name: string }[] }>('items');
    for (const item of page.items.slice(0, 3)) await op.upsert('items', { ...item, big: 2n ** 70n, bytes: new Uint8Array([104, 105]) });
    await op.delete('items', { id: 2 });
    await op.checkpoint({ done: true });
    if (state.fail) throw new Error('the API changed its mind');
  },
});
`);
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const run = await airbyte(['read', dir, '--config', await config(dir, flat()), '--catalog', catalog]);
    expect(run.code, run.stderr).toBe(0);
    const logs = run.of('LOG').map((l) => l.log.message);
    expect(logs).toContain('careless: the token is <redacted:token> and the raw one <redacted:token>');
    expect(logs).toContain('no line break at the end');
    const records = run.of('RECORD').map((r) => r.record.data);
    expect(records.slice(0, 3).map((d) => [d.id, d.big, d.bytes])).toEqual([
      [1, '1180591620717411303424', 'aGk='],
      [2, '1180591620717411303424', 'aGk='],
      [3, '1180591620717411303424', 'aGk='],
    ]);
    expect(records[3]).toEqual({ id: 2, _ab_cdc_deleted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expectNoSecretOutsideControl(run, leakForms(TOKEN));

    const failing = await airbyte([
      'read',
      dir,
      '--config',
      await config(dir, flat()),
      '--catalog',
      catalog,
      '--state',
      await jsonFile(dir, 'state.json', [
        {
          type: 'GLOBAL',
          global: { shared_state: { fail: true }, stream_states: [{ stream_descriptor: { name: 'items' } }] },
        },
      ]),
    ]);
    expect(failing.code).toBe(1);
    const [trace] = failing.of('TRACE').filter((m) => m.trace.type === 'ERROR');
    expect(trace!.trace.error).toMatchObject({
      failure_type: 'system_error',
      message: expect.stringContaining('the API changed its mind'),
    });
    // What was checkpointed before the failure reached Airbyte first, then the stream's INCOMPLETE.
    const order = failing.messages.map((m) =>
      m.type === 'TRACE' ? (m.trace.stream_status?.status ?? 'ERROR') : m.type,
    );
    expect(order.lastIndexOf('STATE')).toBeLessThan(order.indexOf('INCOMPLETE'));
    expect(order.indexOf('INCOMPLETE')).toBeLessThan(order.indexOf('ERROR'));
    expect(order).not.toContain('COMPLETE');
  });

  it('a state holding a secret is refused before it is sent (TRACE, exit 1); with --verbose the TRACE has the stack; a project without a connector is a TRACE too', async () => {
    const dir = await project(`
import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op }) {
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ token: configuration.token });
  },
});
`);
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const run = await airbyte(['read', dir, '--config', await config(dir, flat()), '--catalog', catalog, '--verbose']);
    expect(run.code).toBe(1);
    expect(run.of('STATE')).toEqual([]);
    const [trace] = run.of('TRACE').filter((m) => m.trace.type === 'ERROR');
    expect(trace!.trace.error).toMatchObject({
      failure_type: 'system_error',
      message: expect.stringContaining(
        "refusing to save the state: it holds the value of secret configuration key(s) 'token'",
      ),
    });
    expect(trace!.trace.error.stack_trace).toContain('ConnectorError');
    expectNoSecretOutsideControl(run, leakForms(TOKEN));

    const missing = await airbyte(['spec', join(root, 'no-connector')]);
    expect(missing.code).toBe(1);
    expect(missing.of('TRACE').filter((m) => m.trace.type === 'ERROR')[0]!.trace.error).toMatchObject({
      failure_type: 'system_error',
      message: expect.stringContaining('no connector file'),
    });
  });
});
