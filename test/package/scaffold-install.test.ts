import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

/**
 * Issue 38: a project `init` scaffolds from this checkout installs with `npm install` alone, though
 * no registry holds connector-auth (its package.json names the tarball init packed into vendor/),
 * type-checks, and `npx connector-auth` in it runs the project's own copy; a production install
 * (`npm ci --omit=dev`) leaves DuckDB out. The other packages come from the npm registry. One
 * project per template.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
const templates = (await readdir(join(root, 'templates'), { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline'];

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'connector-auth-scaffold-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a scaffold of each template, `npm install` then typecheck and npx', () => {
  it('ships four templates or more', () => {
    expect(templates.length).toBeGreaterThanOrEqual(4);
  });

  for (const template of templates) {
    it(`${template}: installs from its vendor/, type-checks, npx runs node_modules/.bin's connector-auth; production leaves DuckDB out`, async () => {
      const project = join(work, template);
      const init = await cli(['init', project, '--template', template]);
      expect(init.code, init.stderr).toBe(0);
      expect(await readdir(join(project, 'vendor'))).toEqual([`connector-auth-${version}.tgz`]);

      await run('npm', INSTALL, { cwd: project });
      const installed = JSON.parse(
        await readFile(join(project, 'node_modules', 'connector-auth', 'package.json'), 'utf8'),
      ) as { version: string };
      expect(installed.version).toBe(version);
      // DuckDB, the local debug's warehouse, comes as the project's devDependency.
      await readFile(join(project, 'node_modules', '@duckdb', 'node-api', 'package.json'));

      const typecheck = await run('npm', ['run', '--silent', 'typecheck'], { cwd: project }).then(
        () => '',
        (failed: { stdout?: string; stderr?: string }) => `${failed.stdout ?? ''}${failed.stderr ?? ''}` || 'failed',
      );
      expect(typecheck).toBe('');

      const npx = await run('npx', ['connector-auth', '--version'], { cwd: project });
      expect(npx.stdout).toContain(version);
      const which = await run('npm', ['exec', '-c', 'command -v connector-auth'], { cwd: project });
      expect(which.stdout.trim()).toBe(join(project, 'node_modules', '.bin', 'connector-auth'));

      // What a production image installs: connector-auth and the source's SDK, not DuckDB nor TypeScript.
      await run('npm', ['ci', '--omit=dev', ...INSTALL.slice(1)], { cwd: project });
      const { dependencies } = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const name of Object.keys(dependencies)) await readFile(join(project, 'node_modules', name, 'package.json'));
      const production = await readdir(join(project, 'node_modules'));
      expect(production).not.toContain('@duckdb');
      expect(production).not.toContain('typescript');
      expect(await run('npx', ['connector-auth', '--version'], { cwd: project })).toMatchObject({
        stdout: expect.stringContaining(version),
      });
    }, 300_000);
  }
});
