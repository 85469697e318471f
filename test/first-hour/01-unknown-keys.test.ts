import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';
import { jsonOut, scaffold, scratch, useLocalConfiguration } from './support.js';

/**
 * Issue 24, point 1: a mistyped key is no longer silent. `item_path` for `items_path` synced the
 * default path and exited 0; `probe_pth` probed the base URL and reported a 404 about the wrong
 * thing. Now every command that reads the configuration stops at it (exit 2) naming the key and the
 * key meant, before any request; a key no known key is close to is a warning, and the run goes on.
 */

let emulator: RunningEmulator;
let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  [emulator, work] = await Promise.all([startEmulator(), scratch('unknown-keys')]);
});
afterAll(async () => {
  await emulator?.stop();
  await work?.remove();
});

const COMMANDS = [['validate'], ['probe'], ['debug'], ['doctor'], ['authorize', '--no-open', '--timeout', '1']];

describe('a misspelt configuration key', () => {
  it.each([
    ['item_path', 'items_path'],
    ['probe_pth', 'probe_path'],
  ])('%s: every command exits 2 naming it and %s, and sends nothing', async (typo, meant) => {
    const dir = await scaffold(work.root, `typo-${typo}`, 'rest-api');
    const local = await useLocalConfiguration(dir, { base_url: `${emulator.exampleApiUrl}` });
    const { [meant]: value, ...rest } = local;
    await useLocalConfiguration(dir, { ...rest, [typo]: value! });
    const before = emulator.requests;
    for (const command of COMMANDS) {
      const run = await cli([command[0]!, dir, ...command.slice(1)]);
      const output = run.stdout + run.stderr;
      expect(run.code, `${command[0]}: ${output}`).toBe(2);
      expect(output).toContain(`key '${typo}' is not a key any schema reads; did you mean '${meant}'?`);
    }
    // --json carries the key to fix.
    const json = await cli(['validate', dir, '--json']);
    expect(jsonOut(json)).toMatchObject({ ok: false, code: 'unknown_key', key: typo, exit_code: 2 });
    expect(emulator.requests).toBe(before);
  });

  it('pipeline and webhooks name a misspelt key of the file given with --configuration too', async () => {
    const dir = await scaffold(work.root, 'interfaces', 'pipeline-metadata');
    await useLocalConfiguration(dir, { base_url: emulator.pipelineUrl });
    const file = join(dir, 'configuration.json');
    const good = await cli(['pipeline', 'groups', '--configuration', file, '--json']);
    expect(good.code, good.stderr).toBe(0);
    const { username, ...rest } = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    await writeFile(file, JSON.stringify({ ...rest, usrname: username }));
    for (const args of [
      ['pipeline', 'groups'],
      ['webhooks', 'list'],
    ]) {
      const run = await cli([...args, '--configuration', file]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("key 'usrname' is not a key any schema reads; did you mean 'username'?");
    }
  });

  it('a key far from every known key is a warning: the sync runs, and validate lists it', async () => {
    const dir = await scaffold(work.root, 'far', 'rest-api');
    await useLocalConfiguration(dir, { base_url: emulator.exampleApiUrl, notes_for_the_team: 'rotated in May' });
    const debug = await cli(['debug', dir]);
    expect(debug.code, debug.stderr).toBe(0);
    expect(debug.stderr).toContain(
      "configuration key 'notes_for_the_team' is not read by the connector, its auth method or its source (ignored)",
    );
    const validate = await cli(['validate', dir, '--json']);
    expect(validate.code).toBe(0);
    expect(jsonOut(validate)).toMatchObject({ ok: true, unknown_keys: ['notes_for_the_team'] });
    const doctor = await cli(['doctor', dir, '--json']);
    expect(
      (jsonOut(doctor).findings as { check: string; key?: string }[])
        .filter((f) => f.check === 'unknown-key')
        .map((f) => f.key),
    ).toEqual(['notes_for_the_team']);
  });
});
