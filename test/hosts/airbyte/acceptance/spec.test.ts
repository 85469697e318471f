import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDockerfile } from '../dockerfile.js';
import { airbyte, jsonFile } from '../support.js';
import {
  checkExceptionProblems,
  checkProblems,
  configMatchesSpec,
  imageEnvironmentProblems,
  SPEC_CHECKS,
  type Json,
} from './cat.js';
import { startTargets, type Target } from './targets.js';

/**
 * CAT's TestSpec and TestConnection (test_core.py), default settings, on the three sources of
 * targets.ts: the SPEC each prints passes every spec check, the configuration Airbyte's form would
 * save validates against it, the image's AIRBYTE_ENTRYPOINT is its ENTRYPOINT, and check answers
 * one CONNECTION_STATUS, SUCCEEDED or FAILED, or (when it cannot run) one TRACE.
 */

let targets: Target[];
let stop: () => Promise<void>;
const specs = new Map<string, Json>();

beforeAll(async () => {
  ({ targets, stop } = await startTargets('spec'));
  for (const target of targets) {
    const run = await airbyte(['spec', target.dir]);
    expect(run.code, run.stderr).toBe(0);
    specs.set(target.name, run.of('SPEC')[0]!.spec);
  }
});
afterAll(() => stop?.());

const NAMES = ['rest-api template', 'rest connector', 'database template'];
const target = (name: string) => targets.find((t) => t.name === name)!;

describe.each(NAMES)('TestSpec: %s', (name) => {
  for (const [check, problems] of Object.entries(SPEC_CHECKS))
    it(check, () => expect(problems(specs.get(name)!.connectionSpecification)).toEqual([]));

  it('test_config_match_spec: the configuration as Airbyte saves it validates against the spec', () => {
    expect(configMatchesSpec(target(name).config, specs.get(name)!.connectionSpecification)).toEqual([]);
  });

  // A secret is still a secret when nested under the method: the spec marks the method's own keys.
  it("the spec's secrets are the ones CAT names: the method's credential is airbyte_secret", () => {
    const methods = specs.get(name)!.connectionSpecification.properties.auth_method.oneOf as Json[];
    const secret = name === 'database template' ? 'password' : 'token';
    const method = methods.find((m) => m.properties[secret]);
    expect(method.properties[secret]).toMatchObject({ airbyte_secret: true });
  });
});

describe('TestSpec: the image', () => {
  it('test_image_environment_variables: AIRBYTE_ENTRYPOINT is set and is the ENTRYPOINT', async () => {
    // The Dockerfile init writes into every project (image-entrypoint.test.ts runs its command line).
    const dockerfile = parseDockerfile(await readFile(join(target('rest-api template').dir, 'Dockerfile'), 'utf8'));
    expect(imageEnvironmentProblems(dockerfile)).toEqual([]);
  });
});

describe.each(NAMES)('TestConnection: %s', (name) => {
  it('test_check with status succeed: one CONNECTION_STATUS, SUCCEEDED', async () => {
    const run = await target(name).run('check');
    expect(checkProblems(run.messages, 'SUCCEEDED'), run.stdout).toEqual([]);
  });

  it('test_check with status failed: one CONNECTION_STATUS, FAILED (exit 0)', async () => {
    const run = await target(name).run('check', { config: target(name).badConfig });
    expect(run.code).toBe(0);
    expect(checkProblems(run.messages, 'FAILED'), run.stdout).toEqual([]);
  });
});

describe('TestConnection: a check that cannot run', () => {
  it('test_check with status exception: one TRACE with an error message', async () => {
    // A project whose connector file does not load: no status to give, so a TRACE and a non-zero exit.
    const { dir, config } = target('rest connector');
    const run = await airbyte([
      'check',
      join(dir, 'no-such-project'),
      '--config',
      await jsonFile(dir, 'exception.json', config),
    ]);
    expect(run.code).not.toBe(0);
    expect(checkExceptionProblems(run.messages), run.stdout).toEqual([]);
  });
});
