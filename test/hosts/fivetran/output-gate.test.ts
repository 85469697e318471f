import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerProject, type BearerProject } from '../bearer-project.js';
import { connectorClient, startServe } from './support.js';

/**
 * `serve` lives for months and answers a call after another, each with a secrets registry of its
 * own. The CLI gates stdout and stderr once, with the process-wide registry each call's forms
 * reach; a call that gated them again would leave one more wrapper on every write for the rest of
 * the server's life. Counted in the built CLI's process: a module preloaded with `--import` writes
 * a line each time `process.stdout.write` or `process.stderr.write` is replaced.
 */

const TOKEN = 'tok_output_gate_7d24b1';

const CONNECTOR = `import { defineConnector } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ configuration, op }) {
    console.log('the token is', configuration.token);
    await op.upsert('items', { id: 1 });
    await op.checkpoint({ done: true });
  },
});
`;

const TRAP = `import { appendFileSync } from 'node:fs';
for (const name of ['stdout', 'stderr']) {
  const stream = process[name];
  let write = stream.write;
  Object.defineProperty(stream, 'write', {
    configurable: true,
    get: () => write,
    set: (next) => {
      write = next;
      appendFileSync(process.env.OUTPUT_GATES, name + '\\n');
    },
  });
}
`;

let setup: BearerProject;
let gates: string;

beforeAll(async () => {
  setup = await bearerProject('output-gate', TOKEN, CONNECTOR);
  gates = join(setup.root, 'gates.log');
  await writeFile(join(setup.root, 'trap.mjs'), TRAP);
});

afterAll(() => setup?.stop());

const replaced = async () => (await readFile(gates, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('serve gates its output once, whatever the number of calls', () => {
  it('three Tests and two Updates replace neither stream again; the token a connector prints is redacted', async () => {
    const env = { NODE_OPTIONS: `--import=${pathToFileURL(join(setup.root, 'trap.mjs')).href}`, OUTPUT_GATES: gates };
    const serve = (setup.serve = await startServe(setup.project, [], env));
    const client = connectorClient(serve.port);
    try {
      const atStart = await replaced();
      // The CLI's own gate, one for each stream.
      expect([...atStart].sort()).toEqual(['stderr', 'stdout']);
      for (let call = 0; call < 3; call++) {
        expect(await client.test(setup.configuration(TOKEN))).toMatchObject({ success: true });
      }
      for (let call = 0; call < 2; call++) {
        const update = await client.update({ configuration: setup.configuration(TOKEN) });
        expect(update.error).toBeUndefined();
      }
      expect(await replaced()).toEqual(atStart);
      expect(serve.stdout()).toContain('the token is');
      expect(serve.stdout() + serve.stderr()).not.toContain(TOKEN);
    } finally {
      client.close();
    }
  });
});
