import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AirbyteRun } from '../support.js';
import {
  configuredFromDiscovered,
  discoveredStreams,
  emittedAtIncreaseProblems,
  fullRefreshOnly,
  sameRecordsProblems,
} from './cat.js';
import { startTargets, type Target } from './targets.js';

/**
 * CAT's TestFullRefresh (test_full_refresh.py), on the three sources of targets.ts: two reads, one
 * after the other, of the full-refresh-only catalog CAT builds from discover. CAT sleeps 0.1 s
 * between them so that emitted_at can differ; here the second read is a new process started after
 * the first one ended, which is later by construction.
 */

let targets: Target[];
let stop: () => Promise<void>;
const reads = new Map<string, [AirbyteRun, AirbyteRun]>();

beforeAll(async () => {
  ({ targets, stop } = await startTargets('full-refresh'));
  for (const target of targets) {
    const catalog = fullRefreshOnly(
      configuredFromDiscovered(discoveredStreams((await target.run('discover')).messages)),
    );
    const first = await target.run('read', { catalog });
    const second = await target.run('read', { catalog });
    reads.set(target.name, [first, second]);
  }
});
afterAll(() => stop?.());

describe.each(['rest-api template', 'rest connector', 'database template'])('TestFullRefresh: %s', (name) => {
  it('both reads succeed', () => {
    for (const run of reads.get(name)!) expect(run.code, run.stderr).toBe(0);
  });

  it('test_sequential_reads: every record of the second read emitted after every record of the first', () => {
    const [first, second] = reads.get(name)!;
    expect(emittedAtIncreaseProblems(first.messages, second.messages)).toEqual([]);
  });

  it('test_sequential_reads (earlier versions): both reads give the same records', () => {
    const [first, second] = reads.get(name)!;
    expect(sameRecordsProblems(first.messages, second.messages)).toEqual([]);
  });
});
