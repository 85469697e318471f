import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../../peers/postgres-tls.js';
import { connectorClient, plain, startServe, type ServeProcess } from './support.js';

/**
 * `connector-auth serve` on a project scaffolded from the database template, against a real
 * PostgreSQL (TLS verify-full, scram-sha-256: test/peers/postgres.ts): the form of the postgres
 * source, Test, Schema, an incremental Update resumed from its own state_json, a wrong password.
 */

const PASSWORD = 'Db-S3rve/+pw?&x';
const WRONG = 'Wr0ng-S3rve/+pw?&y';
const DATABASE = 'shop';
const ROWS = 2100;

let peer: TlsPostgresPeer;
let db: pg.Client;
let root: string;
let server: ServeProcess;
let client: ReturnType<typeof connectorClient>;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    startTlsPostgres({ password: PASSWORD, database: DATABASE }),
    mkdtemp(join(tmpdir(), 'connector-auth-serve-database-')),
  ]);
  db = await peer.superuser();
  await db.query(
    `create table public.orders (id bigint primary key, status text not null, amount numeric(10, 2) not null, updated_at timestamptz)`,
  );
  await db.query(
    `insert into public.orders select i, 'new', i * 1.25, timestamptz '2024-01-01 00:00:00.123+00' + i * interval '1 second' from generate_series(1, $1::int) as i`,
    [ROWS],
  );
  server = await startServe(await initTemplate(root, 'shop', 'database'));
  client = connectorClient(server.port);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await db?.end();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (password = PASSWORD) => ({
  auth_method: 'password',
  host: peer.host,
  port: String(peer.port),
  database: DATABASE,
  user: peer.user,
  password,
  tls_ca_certificate: peer.ca.certificatePem,
  table: 'public.orders',
});

describe('serve: the database template (PostgreSQL)', () => {
  it("ConfigurationForm: the postgres source's methods and keys, sslmode a dropdown, the template's own keys with their defaults", async () => {
    const form = (await client.configurationForm()) as { fields: Record<string, unknown>[] };
    const byName = Object.fromEntries(form.fields.map((f) => [f.name as string, f]));
    const methods = (
      byName.auth_method as { descriptive_dropdown_fields: { descriptive_dropdown_field: { value: string }[] } }
    ).descriptive_dropdown_fields.descriptive_dropdown_field;
    expect(methods.map((m) => m.value)).toEqual(expect.arrayContaining(['password', 'gcp_metadata', 'aws_access_key']));
    expect(methods.map((m) => m.value)).not.toContain('bearer');
    expect(
      (byName.auth_method_password as { conditional_fields: { fields: unknown[] } }).conditional_fields.fields,
    ).toEqual([expect.objectContaining({ name: 'password', text_field: 'Password', required: true })]);
    expect(byName.host).toMatchObject({ required: true, text_field: 'PlainText' });
    expect(byName.port).toMatchObject({ default_value: '5432' });
    expect(byName.sslmode).toMatchObject({
      dropdown_field: { dropdown_field: ['disable', 'require', 'verify-ca', 'verify-full'] },
      default_value: 'verify-full',
    });
    // A private CA's certificate behind the custom TLS toggle (form-switches.ts), off by default.
    expect(byName.use_custom_tls).toMatchObject({ toggle_field: {}, default_value: 'false' });
    expect(
      (byName.use_custom_tls_keys as { conditional_fields: { fields: { name: string }[] } }).conditional_fields.fields,
    ).toContainEqual(expect.objectContaining({ name: 'tls_ca_certificate', text_field: 'PlainText' }));
    expect(byName.table).toMatchObject({ default_value: 'public.orders' });
    expect(byName.batch_size).toMatchObject({ default_value: '1000' });
  });

  it('Test: success with the password; a wrong one fails naming password, without it', async () => {
    expect(await client.test(configuration())).toMatchObject({ success: true });
    const wrong = await client.test(configuration(WRONG));
    expect(wrong.failure).toMatch(/'password'/);
    expect(wrong.failure).not.toContain(WRONG);
  });

  it("Schema: the table under its destination name with the sample table's declared columns, its primary key marked", async () => {
    const schema = (await client.schema(configuration())) as { without_schema: { tables: unknown[] } };
    expect(schema.without_schema.tables).toEqual([
      {
        name: 'orders',
        columns: [
          { name: 'id', type: 'LONG', primary_key: true },
          { name: 'status', type: 'STRING', primary_key: false },
          expect.objectContaining({
            name: 'amount',
            type: 'DECIMAL',
            primary_key: false,
            params: expect.objectContaining({ decimal: { precision: 10, scale: 2 } }),
          }),
          { name: 'updated_at', type: 'UTC_DATETIME', primary_key: false },
        ],
      },
    ]);
  });

  it('Update: every row, typed (int8 as LONG, numeric as the declared exact DECIMAL, timestamptz as UTC_DATETIME); resumed, only rows changed since', async () => {
    const first = await client.update({ configuration: configuration() });
    expect(first.error).toBeUndefined();
    expect(first.records).toHaveLength(ROWS);
    expect(plain(first.records[0]!)).toEqual({
      id: { long: '1' },
      status: { string: 'new' },
      amount: { decimal: '1.25' },
      updated_at: { utc_datetime: Date.UTC(2024, 0, 1, 0, 0, 1, 123) },
    });
    // One checkpoint a batch of 1000, each after the records it covers.
    expect(first.checkpoints.map((c) => c.key)).toEqual([['1000'], ['2000'], [String(ROWS)]]);

    await db.query(`update public.orders set status = 'paid', updated_at = now() where id in (5, 6)`);
    await db.query(`insert into public.orders values (${ROWS + 1}, 'new', 1, now())`);
    const second = await client.update({
      configuration: configuration(),
      state_json: JSON.stringify(first.checkpoints.at(-1)),
    });
    expect(second.error).toBeUndefined();
    expect(second.records.map((r) => [plain(r).id, plain(r).status])).toEqual([
      [{ long: '5' }, { string: 'paid' }],
      [{ long: '6' }, { string: 'paid' }],
      [{ long: String(ROWS + 1) }, { string: 'new' }],
    ]);
  });

  it('Update with a wrong password: UNAUTHENTICATED naming password; nothing printed holds either password', async () => {
    const result = await client.update({ configuration: configuration(WRONG) });
    expect(result.records).toEqual([]);
    expect(result.error?.code).toBe(16);
    expect(result.error?.details).toMatch(/'password'/);
    const printed = server.stdout() + server.stderr() + (result.error?.details ?? '');
    for (const form of [...leakForms(PASSWORD), ...leakForms(WRONG)]) expect(printed).not.toContain(form);
  });
});
