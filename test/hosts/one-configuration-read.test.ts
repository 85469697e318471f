import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIGURATION_READ_CHANNEL } from '../../src/config/index.js';
import { cli } from '../helpers/cli.js';
import { airbyte, configuredCatalog, jsonFile } from './airbyte/support.js';
import { bearerProject, type BearerProject } from './bearer-project.js';
import { connectorClient, startServe } from './fivetran/support.js';

/**
 * Issue 39: the host reads the configuration, once per run or call, and everything past it takes
 * the `Configuration` it read. Counted in the built CLI's own process: a module preloaded with
 * `--import` subscribes to the channel every read is announced on and writes one line per read,
 * with the key names it read (never a value). A second read anywhere in a run (a host, the run's
 * start, authenticate) adds a line and fails the count.
 */

const TOKEN = 'tok_one_read_5c1f9e';

const CONNECTOR = `import { defineConnector, z } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  secretKeys: ['api_pin'],
  configuration: z.object({ page_size: z.coerce.number().default(10), api_pin: z.string().default('pin-0000') }),
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ op }) {
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ done: true });
  },
});
`;

let setup: BearerProject;
let counter: string;

beforeAll(async () => {
  setup = await bearerProject('one-read', TOKEN, CONNECTOR);
  counter = join(setup.root, 'count-reads.mjs');
  await writeFile(
    counter,
    `import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
subscribe(${JSON.stringify(CONFIGURATION_READ_CHANNEL)}, (read) => {
  appendFileSync(process.env.CONFIGURATION_READS, JSON.stringify(read.keys) + '\\n');
});
`,
  );
});

afterAll(() => setup?.stop());

/** The environment of a CLI whose reads are written to `file`. */
function counted(file: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=${pathToFileURL(counter).href}`, CONFIGURATION_READS: join(setup.root, file) };
}

/** The reads written to `file` so far, each the key names it read. */
async function reads(file: string): Promise<string[][]> {
  const text = await readFile(join(setup.root, file), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string[]);
}

const configuration = () => ({ ...setup.configuration(TOKEN), api_pin: 'pin-4242-one-read' });
const keys = () => Object.keys(configuration());

describe('one read of the configuration per run', () => {
  it('debug: the run reads configuration.json once', async () => {
    await writeFile(join(setup.project, 'configuration.json'), JSON.stringify(configuration()));
    const run = await cli(['debug', setup.project], { env: counted('debug.reads') });
    expect(run.code, run.stderr).toBe(0);
    expect(await reads('debug.reads')).toEqual([keys()]);
  });

  it('airbyte check and read: once each', async () => {
    const config = await jsonFile(setup.root, 'config.json', configuration());
    const check = await airbyte(['check', setup.project, '--config', config], { env: counted('check.reads') });
    expect(check.of('CONNECTION_STATUS'), check.stdout).toEqual([
      expect.objectContaining({ connectionStatus: expect.objectContaining({ status: 'SUCCEEDED' }) }),
    ]);
    expect(await reads('check.reads')).toEqual([keys()]);

    const catalog = await jsonFile(setup.root, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const read = await airbyte(['read', setup.project, '--config', config, '--catalog', catalog], {
      env: counted('read.reads'),
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.of('RECORD')).toHaveLength(1);
    expect(await reads('read.reads')).toEqual([keys()]);
  });

  it('serve: once per Test, once per Update', async () => {
    const serve = (setup.serve = await startServe(setup.project, [], counted('serve.reads')));
    const client = connectorClient(serve.port);
    try {
      expect(await client.test(configuration())).toMatchObject({ success: true });
      expect(await reads('serve.reads')).toHaveLength(1);
      const update = await client.update({ configuration: configuration() });
      expect(update.error).toBeUndefined();
      expect(update.records).toHaveLength(1);
      expect(await reads('serve.reads')).toEqual([keys(), keys()]);
    } finally {
      client.close();
    }
  });
});
