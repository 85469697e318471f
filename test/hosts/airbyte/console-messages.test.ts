import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearerProject, type BearerProject } from '../bearer-project.js';
import { airbyte, configuredCatalog, jsonFile } from './support.js';

/**
 * Issue 42: what a connector prints with console.log under `airbyte read` becomes LOG messages, one
 * per call: a multi-line message stays one message, its line breaks JSON-escaped in one stdout line,
 * rather than one LOG message per line of it.
 */

const TOKEN = 'tok_console_messages_3b8e1c';

const CONNECTOR = `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    console.log('first line\\nsecond line\\nthird line');
    console.log('a table:', { rows: 1 });
    process.stdout.write('written in ');
    process.stdout.write('two parts\\n');
    await op.upsert('items', { id: 1 });
  },
});
`;

let setup: BearerProject;
beforeAll(async () => {
  setup = await bearerProject('console-messages', TOKEN, CONNECTOR);
});
afterAll(() => setup?.stop());

it('one console.log call is one LOG message, its lines kept together; a line written in parts is one message too', async () => {
  const run = await airbyte([
    'read',
    setup.project,
    '--config',
    await jsonFile(setup.root, 'config.json', setup.configuration(TOKEN)),
    '--catalog',
    await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
  ]);
  expect(run.code, run.stderr).toBe(0);
  const printed = run
    .of('LOG')
    .map((m) => m.log.message as string)
    .filter((message) => /line|table|written/.test(message));
  expect(printed).toEqual(['first line\nsecond line\nthird line', 'a table: { rows: 1 }', 'written in two parts']);
  expect(run.stdout.split('\n').filter((line) => line.includes('second line'))).toEqual([
    expect.stringContaining('first line\\nsecond line\\nthird line'),
  ]);
});
