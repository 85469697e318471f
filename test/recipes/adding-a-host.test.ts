import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection } from '../helpers/rejection.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';
import { copyProject, type ProjectCopy } from './project-copy.js';

/**
 * docs/recipes/adding-a-host.md, followed step by step on a copy of the project: a toy host that
 * keeps rows, states and rotated values in memory and its log lines in a list. Its folder (its README
 * naming its files) and its row in src/hosts/README.md are the only edits; the copy passes the type-check, the lint, the house tests
 * and the doc tests, and the run gives the host the probe line, the summary line and the state guard's
 * one message, against a real REST peer. Leaving out the folder's door (index.ts) fails the copy's
 * house test.
 */

const MEMORY_HOST = `import { readConfiguration, type RawConfiguration } from '../../config/index.js';
import { runConnector, type Destination, type RunConnectorOptions, type State } from '../../connector/index.js';
import { createLogger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/** What the memory host kept of a run. */
export interface MemoryRun {
  rows: { table: string; row: Record<string, unknown> }[];
  states: string[];
  rotated: Map<string, string>;
  lines: string[];
}

export async function runMemory(
  connector: RunConnectorOptions['connector'],
  values: RawConfiguration,
  registry: SecretRegistry,
  kept: MemoryRun,
): Promise<void> {
  const configuration = readConfiguration(values, { registry });
  const log = createLogger({ registry, write: (line) => void kept.lines.push(line) });
  const destination: Destination & { close(): Promise<void> } = {
    declare: async () => {},
    upsert: async (table, row) => void kept.rows.push({ table, row }),
    update: async (table, row) => void kept.rows.push({ table, row }),
    delete: async (table, row) => void kept.rows.push({ table, row }),
    truncate: async () => {},
    flush: async () => {},
    schemaChanges: 0,
    close: async () => {},
  };
  const state: State = {};
  await runConnector({
    connector,
    configuration,
    state,
    registry,
    host: {
      log,
      openDestination: async () => destination,
      state: { save: async (_state, json) => void kept.states.push(json) },
      rotation: { keep: async (key, value) => void kept.rotated.set(key, value) },
    },
  });
}
`;

interface MemoryRun {
  rows: { table: string; row: Record<string, unknown> }[];
  states: string[];
  rotated: Map<string, string>;
  lines: string[];
}
/** The copy's src/hosts/memory/index.ts, which the real src/ does not have. */
interface Host {
  runMemory(connector: unknown, values: Record<string, string>, registry: unknown, kept: MemoryRun): Promise<void>;
}
type Library = typeof import('../../src/index.js');
type Secrets = typeof import('../../src/secrets/index.js');

const TOKEN = 'tok_recipe_host_51c2e9';
let copy: ProjectCopy;
let host: Host;
let library: Library;
let secrets: Secrets;
let peer: HttpApiPeer;

beforeAll(async () => {
  peer = await start({ auth: { kind: 'bearer', token: TOKEN } });
  copy = await copyProject('host');
  // 1. The host's folder: its run, its door, its README.
  await copy.add('src/hosts/memory/run-memory.ts', MEMORY_HOST);
  await copy.add(
    'src/hosts/memory/index.ts',
    "export { runMemory } from './run-memory.js';\nexport type { MemoryRun } from './run-memory.js';\n",
  );
  await copy.add(
    'src/hosts/memory/README.md',
    '# src/hosts/memory\n\n- `run-memory.ts`: a run kept in memory.\n- `index.ts`: the door.\n',
  );
  // 2. Its row in the host table, by its folder.
  await copy.insertAfter(
    'src/hosts/README.md',
    '| host | destination | state | rotated secret (`RotationKeeper`) |\n| --- | --- | --- | --- |\n',
    '| `memory/` | a list | a list | a map |\n',
  );
  host = await copy.load<Host>('hosts/memory/index.ts');
  library = await copy.load<Library>('index.ts');
  secrets = await copy.load<Secrets>('secrets/index.ts');
});

afterAll(async () => {
  await peer?.stop();
  await copy?.remove();
});

const configuration = () => ({ auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health' });
const kept = (): MemoryRun => ({ rows: [], states: [], rotated: new Map(), lines: [] });

describe('recipe: adding a host', () => {
  it(
    "the copy passes the type-check, the lint, the house tests and the doc tests with the host's folder in it",
    { timeout: 600_000 },
    async () => {
      expect(await copy.typeCheck()).toBe('');
      expect(await copy.lint()).toBe('');
      expect(await copy.test()).toBe('');
    },
  );

  it("without its folder's door (index.ts), the copy fails its house test", { timeout: 300_000 }, async () => {
    const report = await copy.without('src/hosts/memory/index.ts', () =>
      copy.test(['test/house/folder-families.test.ts']),
    );
    expect(report).toContain('hosts/memory has an index.ts, its only door for files outside it');
  });

  it('the run lands its rows and states in the host, with the probe line and the summary line', async () => {
    const connector = library.defineConnector({
      source: 'rest',
      async update({ op }) {
        await op.upsert('items', { id: 1 });
        await op.checkpoint({ cursor: 1 });
      },
    });
    const run = kept();
    await host.runMemory(connector, configuration(), new secrets.SecretRegistry(), run);
    expect(run.rows).toEqual([{ table: 'items', row: { id: 1 } }]);
    expect(run.states).toEqual(['{"cursor":1}']);
    expect(run.lines.join('')).toMatch(/probe succeeded: .* → HTTP 200 in \d+ ms/);
    expect(run.lines.join('')).toMatch(/sync done in [\d.]+ s: 1 upserts, 0 updates, .* 1 checkpoints/);
  });

  it('a state that holds a secret is refused by the run with its one message; the host saves nothing', async () => {
    const connector = library.defineConnector({
      source: 'rest',
      async update({ configuration: values, op }) {
        await op.checkpoint({ cursor: values.token });
      },
    });
    const run = kept();
    const error = await rejection(host.runMemory(connector, configuration(), new secrets.SecretRegistry(), run));
    expect(error.code).toBe('secret_in_state');
    expect(error.message).toContain(
      "refusing to save the state: it holds the value of secret configuration key(s) 'token' (the state is stored unencrypted)",
    );
    expect(run.states).toEqual([]);
  });
});
