import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';
import { exists } from '../helpers/cli.js';
import { scaffold, scratch, useLocalConfiguration } from './support.js';

/**
 * Issue 24, point 9: habits users bring from the Python SDK. Its docs query the local warehouse as
 * `default_schema.<table>` (`tester` still reads, for what was written for it); `init` scaffolds the
 * current directory; `reset --force`; a `reset` with no terminal to ask on answers no; `version`.
 */

let emulator: RunningEmulator;
let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  [emulator, work] = await Promise.all([startEmulator(), scratch('sdk-habits')]);
});
afterAll(async () => {
  await emulator?.stop();
  await work?.remove();
});

async function query(dir: string, sql: string): Promise<unknown[][]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dir, 'files', 'warehouse.db'));
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS();
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

describe("the Python SDK's habits", () => {
  it('init with no directory scaffolds the current one (empty, or holding only .git)', async () => {
    const here = join(work.root, 'here');
    await mkdir(join(here, '.git'), { recursive: true });
    const run = await cli(['init', '--template', 'pipeline-metadata'], { cwd: here });
    expect(run.code, run.stderr).toBe(0);
    expect(await readdir(here)).toEqual(
      expect.arrayContaining([
        'connector.ts',
        'configuration.json',
        'configuration.local.json',
        'package.json',
        'tsconfig.json',
        '.gitignore',
      ]),
    );
    // No `cd` to suggest: the project is where the user is.
    expect(run.stdout).not.toMatch(/^\s+cd /m);
    expect(run.stdout).toContain('npx connector-auth debug');
    const again = await cli(['init'], { cwd: here });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');
  });

  it('the warehouse is queried as default_schema.<table>, and tester.<table> still reads the same rows', async () => {
    const dir = await scaffold(work.root, 'schema', 'rest-api');
    await useLocalConfiguration(dir, { base_url: emulator.exampleApiUrl });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(await query(dir, 'select count(*) from default_schema.items')).toEqual([[230n]]);
    expect(await query(dir, 'select count(*) from tester.items')).toEqual([[230n]]);
    expect(
      await query(
        dir,
        "select table_type from information_schema.tables where table_schema = 'tester' and table_name = 'items'",
      ),
    ).toEqual([['VIEW']]);
  });

  it('reset without a terminal answers no: nothing deleted, exit 2 naming --yes and --force; --force deletes', async () => {
    const dir = await scaffold(work.root, 'reset', 'rest-api');
    await useLocalConfiguration(dir, { base_url: emulator.exampleApiUrl });
    expect((await cli(['debug', dir])).code).toBe(0);
    const asked = await cli(['reset', dir]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(
      /No terminal to ask on, so the answer is no: nothing deleted; pass --yes \(or --force\)/,
    );
    expect(await exists(join(dir, 'files', 'warehouse.db'))).toBe(true);
    expect(await exists(join(dir, 'files', 'state.json'))).toBe(true);
    await writeFile(join(dir, 'files', 'mine.txt'), 'kept');
    const forced = await cli(['reset', dir, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await readdir(join(dir, 'files'))).sort()).toEqual(['mine.txt']);
  });

  it('version, as --version, and with --json', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect((await cli(['version'])).stdout).toBe(`${version}\n`);
    expect((await cli(['--version'])).stdout).toBe(`${version}\n`);
    const json = await cli(['version', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, version, node: process.version });
  });
});
