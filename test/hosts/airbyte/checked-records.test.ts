import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearerProject, type BearerProject } from '../bearer-project.js';
import { cli } from '../../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from './support.js';

/**
 * Issue 43: a RECORD whose values the row guard has just checked skips the output's own scan, but
 * only where that is safe. A secret can still appear in a line whose every value is clean: one that
 * straddles two values and the JSON between them, or one made of digits (the guard does not look
 * into numbers). Those lines must still be scanned and redacted.
 */

// Straddles the values 'tok_a' and 'c_9f2' of the row below and the JSON written between them.
const STRADDLING = 'tok_a","b":"c_9f2';
const DIGITS = '908172635';

const connector = (row: string) => `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    for (let i = 0; i < 3; i++) await op.upsert('items', ${row});
  },
});
`;

let straddling: BearerProject;
let digits: BearerProject;
beforeAll(async () => {
  [straddling, digits] = await Promise.all([
    bearerProject('checked-straddling', STRADDLING, connector(`{ id: i, x: 'tok_a', b: 'c_9f2' }`)),
    bearerProject('checked-digits', DIGITS, connector(`{ id: 1${DIGITS}0 + i, name: 'n' + i }`)),
  ]);
}, 30_000);
afterAll(async () => {
  await straddling?.stop();
  await digits?.stop();
});

async function readArgs(setup: BearerProject, token: string): Promise<string[]> {
  return [
    'read',
    setup.project,
    '--config',
    await jsonFile(setup.root, 'config.json', setup.configuration(token)),
    '--catalog',
    await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items', sync_mode: 'full_refresh' }])),
  ];
}

it('a secret that straddles two clean values and the JSON between them is redacted', async () => {
  const run = await airbyte(await readArgs(straddling, STRADDLING));
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).not.toContain(STRADDLING);
  expect(run.of('RECORD').map((m) => m.record.data)).toEqual([0, 1, 2].map((id) => ({ id, x: '<redacted:token>' })));
});

it('a secret made of digits, written as a number the guard does not look into, is redacted', async () => {
  // Redacted inside a JSON number, the line is no longer JSON: the CLI's own output, not the protocol's.
  const run = await cli(['airbyte', ...(await readArgs(digits, DIGITS))]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('"type":"RECORD"');
  expect(run.stdout).not.toContain(DIGITS);
});
