import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, leakForms } from '../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from './airbyte/support.js';
import { bearerProject, type BearerProject } from './bearer-project.js';
import { connectorClient, startServe } from './fivetran/support.js';

/**
 * Issue 39: the run refuses a checkpoint whose state holds a secret, for every host, with one
 * message and one code (connector/definition/state-guard.ts), before the host stores or sends it:
 * no state.json, no STATE message, no Checkpoint; the run fails with that line.
 */

const TOKEN = 'tok_state_guard_3b9e07';
const MESSAGE =
  "refusing to save the state: it holds the value of secret configuration key(s) 'token' (the state is stored unencrypted)";

const CONNECTOR = `import { defineConnector } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op }) {
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ cursor: 'after ' + configuration.token });
  },
});
`;

let setup: BearerProject;

beforeAll(async () => {
  setup = await bearerProject('state-guard', TOKEN, CONNECTOR);
}, 30_000);

afterAll(() => setup?.stop());

function expectNoToken(texts: Record<string, string>): void {
  for (const [where, text] of Object.entries(texts))
    for (const form of leakForms(TOKEN)) expect(text.includes(form), `${where} holds the token`).toBe(false);
}

describe('a state that holds a secret, on every host', () => {
  it('debug: exit 1 with the one message, and no state.json', async () => {
    await writeFile(join(setup.project, 'configuration.json'), JSON.stringify(setup.configuration(TOKEN)));
    const run = await cli(['debug', setup.project]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(MESSAGE);
    expect(run.stderr).toContain('secret_in_state');
    expect(existsSync(join(setup.project, 'files', 'state.json'))).toBe(false);
    expectNoToken({ stdout: run.stdout, stderr: run.stderr });
  });

  it('airbyte read: a TRACE error with the one message, and no STATE message', async () => {
    const run = await airbyte([
      'read',
      setup.project,
      '--config',
      await jsonFile(setup.root, 'config.json', setup.configuration(TOKEN)),
      '--catalog',
      await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items' }])),
    ]);
    expect(run.code).toBe(1);
    expect(run.of('STATE')).toEqual([]);
    const [trace] = run.of('TRACE').filter((m) => m.trace.type === 'ERROR');
    expect(trace!.trace.error.message).toContain(MESSAGE);
    expectNoToken({ stdout: run.stdout, stderr: run.stderr });
  });

  it('serve: the Update ends with the one message, and no Checkpoint', async () => {
    const serve = (setup.serve = await startServe(setup.project));
    const client = connectorClient(serve.port);
    const update = await client.update({ configuration: setup.configuration(TOKEN) });
    client.close();
    expect(update.checkpoints).toEqual([]);
    expect(update.error?.details).toContain(MESSAGE);
    expectNoToken({ replies: JSON.stringify(update.messages), stdout: serve.stdout(), stderr: serve.stderr() });
  });
});
