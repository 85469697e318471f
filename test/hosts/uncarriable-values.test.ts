import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from './airbyte/support.js';
import { bearerProject, type BearerProject } from './bearer-project.js';
import { connectorClient, startServe } from './fivetran/support.js';

/**
 * Issue 42: a bearer token that no HTTP header can carry — a line break inside it, a character
 * outside Latin-1 — is a configuration error naming `token` (exit 2) at `validate` and every
 * command, and each host answers it as the configuration error it is: Airbyte's check FAILED and
 * read's TRACE config_error, Fivetran's INVALID_ARGUMENT with the key in the trailer. Before, the
 * line break exited 1 naming a header and the Latin-1 case exited 4 blaming `base_url`. The value is
 * never printed.
 */

const GOOD = 'tok_carried_ok_4f1a9e';
const BAD = {
  'a line break': 'tok_half_one\ntok_half_two',
  'a character outside Latin-1': 'tok_umlaut_ä€_tail',
};
const PRINTED = ['tok_half_one', 'tok_half_two', 'tok_umlaut'];

const CONNECTOR = `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1 });
  },
});
`;

let setup: BearerProject;
let project: string;

beforeAll(async () => {
  setup = await bearerProject('uncarriable', GOOD, CONNECTOR);
  project = setup.project;
});

afterAll(() => setup?.stop());

const configuration = (token: string) => setup.configuration(token);

const expectUnprinted = (text: string) => {
  for (const part of PRINTED) expect(text).not.toContain(part);
};

describe.each(Object.entries(BAD))('a bearer token holding %s', (problem, token) => {
  const message = `key 'token' holds ${problem}`;

  it('validate, probe and debug: exit 2 naming the key and what is wrong, the value unprinted', async () => {
    await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration(token)));
    for (const command of ['validate', 'probe', 'debug']) {
      const run = await cli([command, project]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain("check 'token'");
      expectUnprinted(run.stdout + run.stderr);
    }
  });

  it('airbyte: check FAILED naming the key, read a TRACE config_error', async () => {
    const config = await jsonFile(setup.root, 'config.json', configuration(token));
    const check = await airbyte(['check', project, '--config', config]);
    expect(check.of('CONNECTION_STATUS')[0]!.connectionStatus).toMatchObject({ status: 'FAILED' });
    expect(check.of('CONNECTION_STATUS')[0]!.connectionStatus.message).toContain(message);
    const read = await airbyte([
      'read',
      project,
      '--config',
      config,
      '--catalog',
      await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
    ]);
    expect(read.code).toBe(2);
    expect(read.of('TRACE')[0]!.trace.error).toMatchObject({ failure_type: 'config_error' });
    expect(read.of('TRACE')[0]!.trace.error.message).toContain(message);
    expectUnprinted(check.stdout + check.stderr + read.stdout + read.stderr);
  });

  it('serve: Test fails with the line naming the key; Update answers INVALID_ARGUMENT, the key in the trailer', async () => {
    const serve = (setup.serve ??= await startServe(project));
    const client = connectorClient(serve.port);
    const test = await client.test(configuration(token));
    const update = await client.update({ configuration: configuration(token) });
    client.close();
    expect(test.success).toBeFalsy();
    expect(test.failure).toMatch(new RegExp(`^\\[uncarriable_value\\] .*${message}.*check 'token'`));
    expect(update.error?.code).toBe(3); // INVALID_ARGUMENT, as for every configuration error
    expect(update.error?.details).toContain(message);
    expect(update.error?.metadata.get('connector-auth-key')).toEqual(['token']);
    expectUnprinted(serve.stdout() + serve.stderr());
  });
});

it('the good token still syncs (a line break at the end, which a header drops, is no problem)', async () => {
  await writeFile(join(project, 'configuration.json'), JSON.stringify(configuration(`${GOOD}\n`)));
  const run = await cli(['debug', project]);
  expect(run.code, run.stderr).toBe(0);
});

it('an API key goes as written in a header only: a line break there is exit 2 naming api_key; in a query string it is encoded and fine', async () => {
  const apiKey = (location: string) => ({
    auth_method: 'api_key',
    api_key: 'key_half_one\nkey_half_two',
    api_key_location: location,
    api_key_query_param: 'key',
    base_url: setup.peer.url,
    probe_path: 'health',
  });
  await writeFile(join(project, 'configuration.json'), JSON.stringify(apiKey('header')));
  const header = await cli(['validate', project]);
  expect(header.code, header.stderr).toBe(2);
  expect(header.stderr).toContain("key 'api_key' holds a line break, which an HTTP header cannot carry");
  await writeFile(join(project, 'configuration.json'), JSON.stringify(apiKey('query')));
  const query = await cli(['validate', project]);
  expect(query.code, query.stderr).toBe(0);
  expect(header.stderr + query.stdout + query.stderr).not.toContain('key_half');
});
