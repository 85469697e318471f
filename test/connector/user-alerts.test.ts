import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from '../hosts/airbyte/support.js';
import { connectorClient, startServe } from '../hosts/fivetran/support.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';

/**
 * A connector's own alerts to its user (`op.warning`, `op.task`): a Warning and a Task on Fivetran, a
 * WARN log and a config_error on Airbyte, a line and exit 1 in debug; the text redacted everywhere.
 */

const TOKEN = 'Alert-T0ken-3f2e9';
let root: string;
let peer: HttpApiPeer;
let project: string;

const configuration = () => ({ auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health' });

beforeAll(async () => {
  [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token: TOKEN }, items: 1 }),
    mkdtemp(join(tmpdir(), 'connector-auth-alerts-')),
  ]);
  project = join(root, 'alerts');
  await mkdir(project);
  await writeFile(
    join(project, 'connector.ts'),
    `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op }) {
    await op.upsert('items', { id: 1 });
    await op.warning('skipped 2 records; token ' + configuration.token);
    await op.task('grant the read:items scope to the app');
  },
});
`,
  );
  await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration()));
});
afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('op.warning and op.task', () => {
  it('debug: the warning is a line, the task stops the run with exit 1 and its text; no token', async () => {
    const run = await cli(['debug', project]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('warning from the connector: skipped 2 records; token <redacted:token>');
    expect(run.stderr).toMatch(
      /error \[connector_task\]: the connector stopped the sync with a task for the user: grant the read:items scope to the app/,
    );
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('airbyte read: a WARN log line, then the task as a config_error after the record', async () => {
    const catalog = await jsonFile(root, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const config = await jsonFile(root, 'config.json', configuration());
    const read = await airbyte(['read', project, '--config', config, '--catalog', catalog]);
    expect(read.code).toBe(1);
    const warn = read.of('LOG').find((m) => m.log.message.includes('warning from the connector'));
    expect(warn?.log).toMatchObject({ level: 'WARN', message: expect.stringContaining('<redacted:token>') });
    const [error] = read.of('TRACE').filter((m) => m.trace.type === 'ERROR');
    expect(error!.trace.error).toMatchObject({
      failure_type: 'config_error',
      message: expect.stringContaining('grant the read:items scope'),
    });
    expect(read.stdout + read.stderr).not.toContain(TOKEN);
  });

  it('serve: a Warning and a Task in the Update stream, after the record, and the call fails', async () => {
    const server = await startServe(project);
    try {
      const client = connectorClient(server.port);
      const update = await client.update({ configuration: configuration(), state_json: '{}' });
      client.close();
      const kinds = update.messages.map((m) => m.operation);
      expect(kinds).toEqual(['records', 'warning', 'task']);
      const [, warning, task] = update.messages as unknown as {
        warning?: { message: string };
        task?: { message: string };
      }[];
      expect(warning!.warning!.message).toBe('skipped 2 records; token <redacted:token>');
      expect(task!.task!.message).toBe('grant the read:items scope to the app');
      expect(update.error).toBeDefined();
      expect(server.stdout()).not.toContain(TOKEN);
    } finally {
      await server.stop();
    }
  });
});
