import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AirbyteRun } from '../support.js';
import {
  BASIC_READ_CHECKS,
  configuredFromDiscovered,
  discoveredStreams,
  INVALID_CATALOG,
  traceOnFailureProblems,
  type ConfiguredStream,
} from './cat.js';
import { startTargets, type Target } from './targets.js';

/**
 * CAT's TestBasicRead (test_core.py), default settings (BasicReadTestConfig: validate_schema,
 * fail_on_extra_columns, validate_primary_keys_data_type, validate_state_messages on; stream
 * statuses validated, as for a certified connector; no empty streams allowed), on the three sources
 * of targets.ts: one read of the catalog CAT builds from discover (every stream, its first sync
 * mode), then a read of a stream that does not exist.
 */

let targets: Target[];
let stop: () => Promise<void>;
const reads = new Map<string, { run: AirbyteRun; catalog: { streams: ConfiguredStream[] } }>();

beforeAll(async () => {
  ({ targets, stop } = await startTargets('basic-read'));
  for (const target of targets) {
    const catalog = configuredFromDiscovered(discoveredStreams((await target.run('discover')).messages));
    reads.set(target.name, { run: await target.run('read', { catalog }), catalog });
  }
});
afterAll(() => stop?.());

const NAMES = ['rest-api template', 'rest connector', 'database template'];

describe.each(NAMES)('TestBasicRead.test_read: %s', (name) => {
  it('the read succeeds', () => expect(reads.get(name)!.run.code, reads.get(name)!.run.stderr).toBe(0));

  for (const [check, problems] of Object.entries(BASIC_READ_CHECKS))
    it(check, () => {
      const { run, catalog } = reads.get(name)!;
      expect(problems(run.messages, catalog)).toEqual([]);
    });
});

describe.each(NAMES)('TestBasicRead.test_airbyte_trace_message_on_failure: %s', (name) => {
  it('a read of a stream that does not exist, with an invalid sync mode: at least one TRACE error', async () => {
    const run = await targets.find((t) => t.name === name)!.run('read', { catalog: INVALID_CATALOG });
    expect(run.code).not.toBe(0);
    expect(traceOnFailureProblems(run.messages), run.stdout).toEqual([]);
  });
});

describe('what the reads show beyond CAT', () => {
  it("the database template's numeric column arrives as a JSON number with its exact digits", () => {
    const { run } = reads.get('database template')!;
    const line = run.stdout.split('\n').find((l) => l.includes('"id":20,'))!;
    expect(line).toContain('"amount":25.00');
  });
});
