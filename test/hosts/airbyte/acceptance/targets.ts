import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initTemplate } from '../../../helpers/cli.js';
import { start as startHttpApi, type HttpApiPeer } from '../../../peers/http-api.js';
import { startTlsPostgres, type TlsPostgresPeer } from '../../../peers/postgres-tls.js';
import { airbyte, jsonFile, type AirbyteRun } from '../support.js';
import type { Json } from './cat.js';

/**
 * The three sources the acceptance tests run against, each a project made as a user makes it and a
 * configuration as Airbyte's form saves it (the method's keys nested under auth_method, every
 * value a string, as the spec types them), against a real peer on loopback:
 *
 * - `rest-api template`: the template as `init` writes it, against the HTTP API peer serving the
 *   example API's items (the columns the template declares);
 * - `rest connector`: a connector written here with one incremental table (`items`, cursor `id`,
 *   the state the last id) and one read whole (`health`), against the HTTP API peer's own items;
 * - `database template`: the template as `init` writes it, against PostgreSQL (TLS, scram) holding
 *   the template's own sample-data.sql, read as the role that file creates.
 */

export interface Target {
  name: string;
  dir: string;
  config: Record<string, Json>;
  /** A configuration the source refuses (a wrong credential): check's FAILED. */
  badConfig: Record<string, Json>;
  run(
    command: 'check' | 'discover' | 'read',
    options?: { config?: Json; catalog?: Json; state?: Json },
  ): Promise<AirbyteRun>;
}

const TOKEN = 'Cat-T0ken/+rest?&x=1';
const WRONG = 'Wr0ng-Cat-T0ken/+rest?&y=2';
const SUPERUSER_PASSWORD = 'Cat-Pg-Superuser/+pw?&x';

let files = 0;
function runner(dir: string, config: Json): Target['run'] {
  return async (command, options = {}) => {
    const args = [command, dir, '--config', await jsonFile(dir, `config-${++files}.json`, options.config ?? config)];
    if (options.catalog) args.push('--catalog', await jsonFile(dir, `catalog-${++files}.json`, options.catalog));
    if (options.state) args.push('--state', await jsonFile(dir, `state-${++files}.json`, options.state));
    return airbyte(args);
  };
}

/** The example API's item (src/emulator/routes/example-api.ts), which the rest-api template declares. */
function exampleItem(id: number) {
  return {
    id,
    name: `item ${id}`,
    price: Math.round(((id * 37) % 1000) + 99) / 100,
    in_stock: id % 7 !== 0,
    updated_at: new Date(Date.UTC(2024, 4, 1) + id * 3_600_000).toISOString(),
  };
}

const restConfig = (url: string, token: string) => ({
  auth_method: { auth_method: 'bearer', token },
  base_url: url,
  probe_path: 'health',
});

export async function restApiTemplate(root: string): Promise<{ target: Target; peer: HttpApiPeer }> {
  const peer = await startHttpApi({
    auth: { kind: 'bearer', token: TOKEN },
    items: 25,
    pageSize: 10,
    item: exampleItem,
  });
  const dir = await initTemplate(root, 'rest-api-template', 'rest-api');
  const config = restConfig(peer.url, TOKEN);
  return {
    peer,
    target: {
      name: 'rest-api template',
      dir,
      config,
      badConfig: restConfig(peer.url, WRONG),
      run: runner(dir, config),
    },
  };
}

/** One incremental table with a cursor and one read whole, as an author of a REST connector writes them. */
export const REST_CONNECTOR = `
import { defineConnector } from 'connector-auth';

interface Item { id: number; name: string; price: number; active: boolean }

export default defineConnector({
  source: 'rest',
  schema: () => [
    // Items only ever get new, larger ids: the state keeps the last id read, under the cursor's name.
    { table: 'items', primary_key: ['id'], cursor: 'id', columns: { id: 'LONG', name: 'STRING', price: 'DOUBLE', active: 'BOOLEAN' } },
    // The API's health, read whole at every sync.
    { table: 'health', primary_key: ['endpoint'], incremental: false, columns: { endpoint: 'STRING', ok: 'BOOLEAN' } },
  ],
  async update({ state, source, op }) {
    const health = await source.json<{ ok: boolean }>('health');
    await op.upsert('health', { endpoint: 'health', ok: health.ok });
    let last = typeof state.id === 'number' ? state.id : 0;
    let cursor: string | undefined;
    do {
      const page = await source.json<{ items: Item[]; next_cursor?: string }>(cursor ? \`items?cursor=\${cursor}\` : 'items');
      for (const item of page.items) if (item.id > last) await op.upsert('items', { ...item });
      last = Math.max(last, ...page.items.map((i) => i.id));
      await op.checkpoint({ id: last });
      cursor = page.next_cursor;
    } while (cursor);
  },
});
`;

export async function restConnector(root: string): Promise<{ target: Target; peer: HttpApiPeer }> {
  const peer = await startHttpApi({ auth: { kind: 'bearer', token: TOKEN }, items: 25, pageSize: 10 });
  const dir = await initTemplate(root, 'rest-connector', 'rest-api');
  await writeFile(join(dir, 'connector.ts'), REST_CONNECTOR);
  const config = restConfig(peer.url, TOKEN);
  return {
    peer,
    target: { name: 'rest connector', dir, config, badConfig: restConfig(peer.url, WRONG), run: runner(dir, config) },
  };
}

const SAMPLE = new URL('../../../../templates/database/sample-data.sql', import.meta.url);

export async function databaseTemplate(root: string): Promise<{ target: Target; peer: TlsPostgresPeer }> {
  const [peer, dir, sample] = await Promise.all([
    startTlsPostgres({ password: SUPERUSER_PASSWORD, database: 'sales' }),
    initTemplate(root, 'database-template', 'database'),
    readFile(SAMPLE, 'utf8'),
  ]);
  const client = await peer.superuser();
  try {
    await client.query(sample);
  } finally {
    await client.end();
  }
  // The role and password sample-data.sql creates, which the template's configuration.local.json names.
  const local = JSON.parse(await readFile(join(dir, 'configuration.local.json'), 'utf8')) as Record<string, string>;
  const connection = (password: string) => ({
    auth_method: { auth_method: 'password', password },
    host: peer.host,
    port: String(peer.port),
    database: 'sales',
    user: local.user!,
    tls_ca_certificate: peer.ca.certificatePem,
    table: 'public.orders',
    // 50 sample rows in batches of 20: three checkpoints, as the sequential-slices test wants.
    batch_size: '20',
  });
  const config = connection(local.password!);
  return {
    peer,
    target: { name: 'database template', dir, config, badConfig: connection(WRONG), run: runner(dir, config) },
  };
}

/** All three, each with its own peer, in a temporary directory; `stop` ends the peers and removes it. */
export async function startTargets(prefix: string): Promise<{ targets: Target[]; stop(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), `connector-auth-cat-${prefix}-`));
  const started = await Promise.allSettled([restApiTemplate(root), restConnector(root), databaseTemplate(root)]);
  const stop = async () => {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.peer.stop() : undefined)));
    await rm(root, { recursive: true, force: true });
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { targets: started.map((s) => (s as PromiseFulfilledResult<{ target: Target }>).value.target), stop };
}
