import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * DuckDB's Node API as the build bundles it (dist/bundle/duckdb-node-api.cjs, after `npm run
 * build`): a project installs the package itself, so the copy must refuse a different installed
 * version (its binding would be paired with this JavaScript) and say so by code, for
 * engine/duckdb-module.ts to load the installed package instead; a missing package is Node's own
 * "cannot find", which becomes dependency_missing there.
 */

const run = promisify(execFile);
const bundled = fileURLToPath(new URL('../../dist/bundle/duckdb-node-api.cjs', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundled-duckdb-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The bundled file required from `project`, as the package in its node_modules would: the error's code, or 'loaded'. */
async function requireFrom(project: string): Promise<string> {
  const copy = join(project, 'node_modules', 'connector-auth', 'duckdb-node-api.cjs');
  await mkdir(join(copy, '..'), { recursive: true });
  await copyFile(bundled, copy);
  const script = `try { require(${JSON.stringify(copy)}); console.log('loaded'); } catch (e) { console.log(e.code); }`;
  return (await run(process.execPath, ['-e', script], { cwd: project })).stdout.trim();
}

describe('the bundled DuckDB Node API', () => {
  it('another installed version of @duckdb/node-api: refused with DUCKDB_VERSION_MISMATCH', async () => {
    const project = join(dir, 'other-version');
    const api = join(project, 'node_modules', '@duckdb', 'node-api');
    await mkdir(join(api, 'lib'), { recursive: true });
    await writeFile(
      join(api, 'package.json'),
      JSON.stringify({ name: '@duckdb/node-api', version: '0.0.1', main: 'lib/index.js' }),
    );
    await writeFile(join(api, 'lib', 'index.js'), 'module.exports = {};\n');
    expect(await requireFrom(project)).toBe('DUCKDB_VERSION_MISMATCH');
  });

  it("no @duckdb/node-api installed: Node's MODULE_NOT_FOUND", async () => {
    expect(await requireFrom(join(dir, 'none'))).toBe('MODULE_NOT_FOUND');
  });
});
