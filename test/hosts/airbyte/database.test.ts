import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../../peers/postgres-tls.js';
import { airbyte, configuredCatalog, expectNoSecretOutsideControl, jsonFile, savedState } from './support.js';

/**
 * `connector-auth airbyte` on the database template, against a real PostgreSQL (TLS with a private
 * CA, scram-sha-256: test/peers/postgres.ts): check, discover, and an incremental read resumed from
 * the per-stream state the first read ended with. Every stdout line is checked against the protocol schema.
 */

const PASSWORD = 'Db-Airbyte/+pw?&x';
const WRONG = 'Wr0ng-Airbyte/+pw?&y';
const DATABASE = 'sales';
const ROWS = 1500;

let peer: TlsPostgresPeer;
let client: pg.Client;
let root: string;

beforeAll(async () => {
  [peer, root] = await Promise.all([
    startTlsPostgres({ password: PASSWORD, database: DATABASE }),
    mkdtemp(join(tmpdir(), 'connector-auth-airbyte-database-')),
  ]);
  client = await peer.superuser();
  await client.query(
    `create table public.orders (id bigint primary key, status text not null, updated_at timestamptz)`,
  );
  await client.query(
    `insert into public.orders select i, 'new', timestamptz '2024-01-01 00:00:00+00' + (i / 100) * interval '1 second' from generate_series(1, $1::int) as i`,
    [ROWS],
  );
});

afterAll(async () => {
  await client?.end();
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const connection = (password = PASSWORD) => ({
  auth_method: 'password',
  host: peer.host,
  port: peer.port,
  database: DATABASE,
  user: peer.user,
  password,
  tls_ca_certificate: peer.ca.certificatePem,
  table: 'public.orders',
  batch_size: 1000,
});

describe('airbyte on the database template (PostgreSQL)', () => {
  it('spec lists the connection keys; check: SUCCEEDED, then FAILED naming password; discover: orders keyed by id', async () => {
    const dir = await initTemplate(root, 'check', 'database');
    const spec = await airbyte(['spec', dir]);
    const specification = spec.of('SPEC')[0]!.spec.connectionSpecification;
    expect(specification.required).toEqual(['auth_method', 'host', 'database', 'user']);
    expect(specification.properties.port).toMatchObject({ default: '5432' });
    expect(specification.properties.sslmode).toMatchObject({
      default: 'verify-full',
      enum: ['disable', 'require', 'verify-ca', 'verify-full'],
    });
    expect(specification.properties.batch_size).toMatchObject({ default: '1000' });
    expect(
      specification.properties.auth_method.oneOf.find((m: { title: string }) => m.title === 'password').properties
        .password,
    ).toMatchObject({ airbyte_secret: true });

    const good = await airbyte(['check', dir, '--config', await jsonFile(dir, 'good.json', connection())]);
    expect(good.of('CONNECTION_STATUS')[0]!.connectionStatus.status, good.stdout).toBe('SUCCEEDED');
    const bad = await airbyte(['check', dir, '--config', await jsonFile(dir, 'bad.json', connection(WRONG))]);
    expect(bad.code).toBe(0);
    expect(bad.of('CONNECTION_STATUS')[0]!.connectionStatus).toMatchObject({
      status: 'FAILED',
      message: expect.stringContaining("'password'"),
    });

    const discover = await airbyte(['discover', dir, '--config', await jsonFile(dir, 'good.json', connection())]);
    expect(discover.of('CATALOG')[0]!.catalog.streams).toEqual([
      expect.objectContaining({
        name: 'orders',
        source_defined_primary_key: [['id']],
        supported_sync_modes: ['full_refresh', 'incremental'],
      }),
    ]);
    for (const run of [spec, good, bad, discover])
      expectNoSecretOutsideControl(run, [...leakForms(PASSWORD), ...leakForms(WRONG)]);
  });

  it('read: every row once in batches, a STATE per batch; resumed from that state, only the rows changed since', async () => {
    const dir = await initTemplate(root, 'read', 'database');
    const config = await jsonFile(dir, 'config.json', connection());
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'orders' }]));
    const first = await airbyte(['read', dir, '--config', config, '--catalog', catalog]);
    expect(first.code, first.stderr).toBe(0);
    const ids = first.of('RECORD').map((r) => r.record.data.id);
    expect(ids).toHaveLength(ROWS);
    expect(new Set(ids).size).toBe(ROWS);
    const states = first.of('STATE');
    expect(states.map((s) => s.state.sourceStats.recordCount)).toEqual([1000, 500]);
    expect(states.at(-1)!.state.stream.stream_state).toMatchObject({ table: 'public.orders', key: [String(ROWS)] });

    await client.query(`update public.orders set status = 'shipped', updated_at = now() where id in (7, 1200)`);
    await client.query(`insert into public.orders values ($1, 'new', now())`, [ROWS + 1]);
    const resumed = await airbyte([
      'read',
      dir,
      '--config',
      config,
      '--catalog',
      catalog,
      '--state',
      await jsonFile(dir, 'state.json', savedState(first)),
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.of('RECORD').map((r) => [r.record.data.id, r.record.data.status])).toEqual([
      [7, 'shipped'],
      [1200, 'shipped'],
      [ROWS + 1, 'new'],
    ]);
    expect(resumed.of('STATE').map((s) => s.state.sourceStats.recordCount)).toEqual([3]);

    const wrong = await airbyte([
      'read',
      dir,
      '--config',
      await jsonFile(dir, 'wrong.json', connection(WRONG)),
      '--catalog',
      catalog,
    ]);
    expect(wrong.code).toBe(3);
    expect(wrong.of('TRACE').filter((m) => m.trace.type === 'ERROR')[0]!.trace.error).toMatchObject({
      failure_type: 'config_error',
      message: expect.stringContaining("'password'"),
    });
    for (const run of [first, resumed, wrong])
      expectNoSecretOutsideControl(run, [...leakForms(PASSWORD), ...leakForms(WRONG)]);
  });
});
