import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';
import { jsonOut, scaffold, scratch, useLocalConfiguration } from './support.js';

/**
 * Issue 24, point 5: a run without a terminal (a CI log, a file, --json) showed nothing between the
 * probe and the summary. Now it writes a progress line at a steady interval: rows per table,
 * checkpoints, time elapsed. (The interrupt message is the reliability work's, not tested here.)
 */

let emulator: RunningEmulator;
let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  [emulator, work] = await Promise.all([startEmulator(), scratch('progress')]);
});
afterAll(async () => {
  await emulator?.stop();
  await work?.remove();
});

/** A connector that takes its time: rows into two tables, a checkpoint every 20, about 2.5 s in all. */
const SLOW_CONNECTOR = `import { defineConnector, z } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  configuration: z.object({ items_path: z.string().default('items') }),
  async update({ op }) {
    for (let i = 1; i <= 100; i++) {
      await op.upsert('orders', { id: i, total: i * 2 });
      if (i % 4 === 0) await op.upsert('customers', { id: i / 4 });
      if (i % 20 === 0) await op.checkpoint({ last: i });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  },
});
`;

interface ProgressLine {
  level: string;
  message: string;
  time: string;
  rows: number;
  tables: Record<string, number>;
  checkpoints: number;
  elapsed_seconds: number;
}

async function slowProject(name: string): Promise<string> {
  const dir = await scaffold(work.root, name, 'rest-api');
  await useLocalConfiguration(dir, { base_url: emulator.exampleApiUrl });
  await writeFile(join(dir, 'connector.ts'), SLOW_CONNECTOR);
  return dir;
}

function progressLines(stderr: string): ProgressLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ProgressLine)
    .filter((line) => line.message.startsWith('syncing: '));
}

describe('debug without a terminal', () => {
  it('a progress line every --progress seconds: rows per table, checkpoints, elapsed; counts only grow', async () => {
    const dir = await slowProject('steady');
    const run = await cli(['debug', dir, '--progress', '0.5']);
    expect(run.code, run.stderr).toBe(0);
    const lines = progressLines(run.stderr);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      expect(line.level).toBe('INFO');
      expect(line.message).toMatch(
        /^syncing: [\d,]+ rows \(orders [\d,]+(, customers [\d,]+)?\), \d+ checkpoints?, \d+ s elapsed$/,
      );
      expect(line.rows).toBe(Object.values(line.tables).reduce((a, b) => a + b, 0));
    }
    for (let i = 1; i < lines.length; i++) {
      expect(lines[i]!.rows).toBeGreaterThanOrEqual(lines[i - 1]!.rows);
      expect(lines[i]!.checkpoints).toBeGreaterThanOrEqual(lines[i - 1]!.checkpoints);
      // Never more often than --progress asks (a loaded machine may make a gap longer, never shorter).
      const gap = Date.parse(lines[i]!.time) - Date.parse(lines[i - 1]!.time);
      expect(gap).toBeGreaterThanOrEqual(400);
    }
    expect(lines.at(-1)!.tables.customers).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/Sync SUCCEEDED/);
  });

  it('--json: the same lines on stderr, the result one document on stdout with rows per table', async () => {
    const dir = await slowProject('json');
    const run = await cli(['debug', dir, '--json', '--progress', '0.5']);
    expect(run.code, run.stderr).toBe(0);
    expect(progressLines(run.stderr).length).toBeGreaterThanOrEqual(3);
    expect(jsonOut(run)).toMatchObject({
      ok: true,
      counts: { upserts: 125, checkpoints: 5 },
      rows_by_table: { orders: 100, customers: 25 },
    });
  });

  it('--progress 0 turns the lines off; a bad value is exit 2', async () => {
    const dir = await slowProject('off');
    const quiet = await cli(['debug', dir, '--progress', '0']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(progressLines(quiet.stderr)).toEqual([]);
    const bad = await cli(['debug', dir, '--progress', 'often']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--progress must be a number of seconds');
  });
});
