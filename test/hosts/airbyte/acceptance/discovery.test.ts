import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AirbyteRun } from '../support.js';
import { DISCOVERY_CHECKS } from './cat.js';
import { startTargets, type Target } from './targets.js';

/**
 * CAT's TestDiscovery (test_core.py), default settings, on the three sources of targets.ts: the
 * CATALOG each discover prints passes every discovery check.
 */

let targets: Target[];
let stop: () => Promise<void>;
const discovered = new Map<string, AirbyteRun>();

beforeAll(async () => {
  ({ targets, stop } = await startTargets('discovery'));
  for (const target of targets) discovered.set(target.name, await target.run('discover'));
});
afterAll(() => stop?.());

describe.each(['rest-api template', 'rest connector', 'database template'])('TestDiscovery: %s', (name) => {
  it('discover succeeds', () => expect(discovered.get(name)!.code, discovered.get(name)!.stderr).toBe(0));

  for (const [check, problems] of Object.entries(DISCOVERY_CHECKS))
    it(check, () => expect(problems(discovered.get(name)!.messages)).toEqual([]));
});
