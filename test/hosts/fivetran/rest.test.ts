import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { start, type HttpApiPeer } from '../../peers/http-api.js';
import { connectorClient, plain, startServe, type ServeProcess } from './support.js';

/**
 * `connector-auth serve` on a project scaffolded from the rest-api template, driven by a gRPC client
 * made from our .proto files, against a real loopback API (test/peers/http-api.ts: Bearer, 25 items
 * in pages of 10). Fivetran sends the configuration with each call: the project's configuration.json
 * keeps its placeholders and is never read.
 */

const TOKEN = 'tok_serve_R3st/Secret+x';
const WRONG = 'tok_serve_Wr0ng/Secret+y';

let peer: HttpApiPeer;
let root: string;
let server: ServeProcess;
let client: ReturnType<typeof connectorClient>;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 25, pageSize: 10 }),
    mkdtemp(join(tmpdir(), 'connector-auth-serve-rest-')),
  ]);
  const project = await initTemplate(root, 'rest', 'rest-api');
  server = await startServe(project);
  client = connectorClient(server.port);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (token = TOKEN) => ({
  auth_method: 'bearer',
  token,
  base_url: peer.url,
  probe_path: 'health',
  items_path: 'items',
});

describe('serve: a rest connector that offers every method the source accepts (no auth list)', () => {
  it('ConfigurationForm lists the signing methods too, their secrets as Password', async () => {
    const project = await initTemplate(root, 'every-method', 'rest-api', undefined, { auth: 'all' });
    const every = await startServe(project);
    const everyClient = connectorClient(every.port);
    try {
      const form = (await everyClient.configurationForm()) as { fields: Record<string, any>[] };
      const byName = Object.fromEntries(form.fields.map((f) => [f.name as string, f]));
      const values = byName.auth_method!.descriptive_dropdown_fields.descriptive_dropdown_field.map(
        (m: { value: string }) => m.value,
      );
      expect(values).toEqual(expect.arrayContaining(['digest', 'jwt_bearer', 'oauth1', 'session_token', 'mtls']));
      const fieldsOf = (method: string) => byName[`auth_method_${method}`]!.conditional_fields.fields as any[];
      expect(fieldsOf('jwt_bearer').find((f) => f.name === 'jwt_private_key')).toMatchObject({
        text_field: 'Password',
        required: false,
      });
      expect(fieldsOf('jwt_bearer').find((f) => f.name === 'jwt_issuer')).toMatchObject({
        text_field: 'PlainText',
        required: true,
      });
      expect(fieldsOf('oauth1').find((f) => f.name === 'oauth1_consumer_secret')).toMatchObject({
        text_field: 'Password',
      });
      expect(fieldsOf('digest').find((f) => f.name === 'password')).toMatchObject({ text_field: 'Password' });
    } finally {
      everyClient.close();
      await every.stop();
    }
  });
});

describe('serve: the rest-api template', () => {
  it('ConfigurationForm: an auth_method dropdown of the rest methods, each method its keys, secrets as Password, the connector key, the probe test', async () => {
    const form = (await client.configurationForm()) as {
      fields: Record<string, unknown>[];
      tests: { name: string; label: string }[];
      table_selection_supported?: boolean;
    };
    const byName = Object.fromEntries(form.fields.map((f) => [f.name as string, f]));
    const authMethod = byName.auth_method as {
      required: boolean;
      descriptive_dropdown_fields: { descriptive_dropdown_field: { value: string; description: string }[] };
    };
    const methods = authMethod.descriptive_dropdown_fields.descriptive_dropdown_field;
    expect(authMethod.required).toBe(true);
    // The methods the template names (`auth` in its connector.ts), in the catalogue's order.
    expect(methods.map((m) => m.value)).toEqual([
      'basic',
      'bearer',
      'api_key',
      'oauth2_client_credentials',
      'oauth2_refresh_token',
    ]);
    expect(methods.find((m) => m.value === 'bearer')!.description).toMatch(/bearer/i);
    expect(methods.map((m) => m.value)).not.toContain('password');

    const bearer = byName.auth_method_bearer as {
      conditional_fields: { condition: Record<string, unknown>; fields: Record<string, unknown>[] };
    };
    expect(bearer.conditional_fields.condition).toMatchObject({
      condition_field: 'auth_method',
      string_value: 'bearer',
      visible_when: 'string_value',
    });
    expect(bearer.conditional_fields.fields).toEqual([
      expect.objectContaining({ name: 'token', text_field: 'Password', required: true, type: 'text_field' }),
    ]);
    const basic = (byName.auth_method_basic as typeof bearer).conditional_fields.fields;
    expect(basic.map((f) => [f.name, f.text_field])).toEqual([
      ['username', 'PlainText'],
      ['password', 'Password'],
    ]);
    const apiKey = (byName.auth_method_api_key as typeof bearer).conditional_fields.fields;
    expect(apiKey.find((f) => f.name === 'api_key_location')).toMatchObject({
      dropdown_field: { dropdown_field: ['header', 'query'] },
      default_value: 'header',
    });

    expect(byName.base_url).toMatchObject({ label: 'Base URL', required: true, text_field: 'PlainText' });
    expect(byName.base_url!.description).toContain('base URL of the API');
    expect(byName.items_path).toMatchObject({ text_field: 'PlainText', default_value: 'items', required: false });
    expect(byName.timeout_seconds).toMatchObject({ default_value: '10' });
    expect(byName.tls_skip_verify).toMatchObject({ toggle_field: {}, default_value: 'false' });
    // The TLS keys and the SSH tunnel's each behind a toggle (form.test.ts), secrets still Password.
    const behind = (toggle: string) =>
      (byName[`${toggle}_keys`] as typeof bearer).conditional_fields.fields.map((f) => [f.name, f.text_field]);
    expect(behind('use_custom_tls')).toContainEqual(['tls_client_private_key', 'Password']);
    expect(behind('use_ssh_tunnel')).toContainEqual(['ssh_tunnel_password', 'Password']);
    expect(byName).not.toHaveProperty('tls_client_private_key');
    expect(byName).not.toHaveProperty('ssh_tunnel_password');
    // AWS's own source key only with an AWS method, and the template names none.
    expect(JSON.stringify(form)).not.toContain('aws_service');
    expect(form.tests).toEqual([{ name: 'probe', label: expect.any(String) }]);
    expect(form.table_selection_supported).toBe(true);
  });

  it('Test: success with the right token; failure naming the key with a wrong one; never the token', async () => {
    expect(await client.test(configuration())).toEqual({ success: true, response: 'success' });
    const wrong = await client.test(configuration(WRONG));
    expect(wrong.failure).toMatch(/^\[http_401\] .*GET .*\/health.*401.* — .*'token'/);
    expect(wrong.failure).not.toContain(WRONG);
    const missing = await client.test({ auth_method: 'bearer', base_url: peer.url });
    expect(missing.failure).toMatch(/'token'/);
    expect((await client.test(configuration(), 'no-such-test')).failure).toMatch(/unknown test 'no-such-test'/);
  });

  it("Schema: the template declares items with the example API's columns, typed, the primary key id", async () => {
    expect(await client.schema(configuration())).toEqual({
      response: 'without_schema',
      without_schema: {
        tables: [
          {
            name: 'items',
            columns: [
              { name: 'id', type: 'LONG', primary_key: true },
              { name: 'name', type: 'STRING', primary_key: false },
              { name: 'price', type: 'DOUBLE', primary_key: false },
              { name: 'in_stock', type: 'BOOLEAN', primary_key: false },
              { name: 'updated_at', type: 'UTC_DATETIME', primary_key: false },
            ],
          },
        ],
      },
      selection_not_supported: false,
      _selection_not_supported: 'selection_not_supported',
    });
  });

  it('Update: 25 typed records, a checkpoint per page; resumed from a state_json it syncs only what follows', async () => {
    const first = await client.update({ configuration: configuration() });
    expect(first.error).toBeUndefined();
    expect(first.records).toHaveLength(25);
    expect(plain(first.records[0]!)).toEqual({
      id: { long: '1' },
      name: { string: 'item 1' },
      price: { double: 1.25 },
      active: { bool: true },
    });
    expect(first.records.every((r) => r.table_name === 'items' && r.type === undefined)).toBe(true);
    // The template checkpoints after each page with a next cursor, and once at the end with synced_at
    // and no cursor: it reads its list whole at every sync.
    expect(first.checkpoints.map((c) => c.cursor)).toEqual(['10', '20', null]);
    expect(first.checkpoints[2]!.synced_at).toEqual(expect.any(String));
    // Records come before the checkpoint that covers them.
    const order = first.messages.map((m) => (m.checkpoint ? 'C' : `R${m.records!.records.length}`)).join(' ');
    expect(order).toBe('R10 C R10 C R5 C');

    const resumed = await client.update({
      configuration: configuration(),
      state_json: JSON.stringify({ cursor: '20' }),
    });
    expect(resumed.error).toBeUndefined();
    expect(resumed.records.map((r) => plain(r).id)).toEqual([21, 22, 23, 24, 25].map((id) => ({ long: String(id) })));
  });

  it("Update with the user's selection: a deselected column is not sent (the primary key always is), a deselected table not at all", async () => {
    const columns = await client.update({
      configuration: configuration(),
      selection: {
        without_schema: {
          include_new_tables: false,
          tables: [
            {
              table_name: 'items',
              included: true,
              columns: { id: false, name: false, price: true },
              include_new_columns: false,
            },
          ],
        },
      },
    });
    expect(columns.error).toBeUndefined();
    expect(columns.records.map(plain).slice(0, 2)).toEqual([
      { id: { long: '1' }, price: { double: 1.25 } },
      { id: { long: '2' }, price: { double: 2.5 } },
    ]);
    const none = await client.update({
      configuration: configuration(),
      selection: { without_schema: { include_new_tables: true, tables: [{ table_name: 'items', included: false }] } },
    });
    expect(none.error).toBeUndefined();
    expect(none.records).toEqual([]);
    expect(none.checkpoints).toHaveLength(3);
  });

  it('Update with a wrong token: the stream ends UNAUTHENTICATED with our line naming the key, nothing sent', async () => {
    const result = await client.update({ configuration: configuration(WRONG) });
    expect(result.messages).toEqual([]);
    expect(result.error?.code).toBe(16);
    expect(result.error?.details).toMatch(/^\[http_401\] .* — .*'token'/);
    expect(result.error?.metadata.get('connector-auth-key')).toEqual(['token']);
    expect(result.error?.details).not.toContain(WRONG);
  });

  it('a state_json that is not JSON: INVALID_ARGUMENT naming state_json', async () => {
    const result = await client.update({ configuration: configuration(), state_json: '{not json' });
    expect(result.error?.code).toBe(3);
    expect(result.error?.details).toMatch(/state_json Fivetran sent is not valid JSON/);
  });

  it('everything printed is a partner SDK JSON line, none holds a secret', () => {
    const lines = server.lines();
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(['level', 'message', 'message-origin']);
      expect(['INFO', 'WARNING', 'SEVERE']).toContain(line.level);
      // The development guide allows a source `sdk_connector` only.
      expect(line['message-origin']).toBe('sdk_connector');
    }
    // The template's own log line ("synced N page(s)") is the connector's: its message says so.
    expect(lines.some((l) => /^\[connector\] synced 3 page\(s\) of items/.test(l.message))).toBe(true);
    const printed = server.stdout() + server.stderr();
    for (const form of [...leakForms(TOKEN), ...leakForms(WRONG)]) expect(printed).not.toContain(form);
  });
});
