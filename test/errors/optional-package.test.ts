import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, importOptionalPackage, requireOptionalPackage } from '../../src/errors/index.js';
import { rejection } from '../helpers/rejection.js';

/**
 * An optional peer that is not installed is one configuration error naming it; any other failure
 * to load (the package there, but something it needs missing or broken) keeps its own error. Real
 * resolutions, from a directory holding one package whose own dependency is absent.
 */

let dir: string;
let from: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'optional-package-'));
  const broken = join(dir, 'node_modules', 'half-installed');
  await mkdir(broken, { recursive: true });
  await writeFile(join(broken, 'package.json'), JSON.stringify({ name: 'half-installed', main: 'index.js' }));
  await writeFile(join(broken, 'index.js'), "module.exports = require('its-own-dependency');\n");
  from = join(dir, 'project.js');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * `import(name)` as a module in `dir` would do it (Node's own resolution from that parent; vitest
 * runs its workers with the flag that allows one): the caller's own import, as the sources pass theirs.
 */
const importFrom = (name: string) => () => import(import.meta.resolve(name, pathToFileURL(from).href));

describe('importOptionalPackage', () => {
  it('a package that is not installed: ConfigurationError (exit 2) naming it, what needs it and the install command', async () => {
    const error = await rejection(importOptionalPackage('pg', "source 'postgres'", () => importFrom('pg')()));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('dependency_missing');
    expect(error.message).toBe("source 'postgres' needs the npm package 'pg', which is not installed");
    expect(error.hint).toBe('run `npm install pg` in the project');
  });

  it('a subpath of a package that is not installed is reported by the package', async () => {
    const error = await rejection(importOptionalPackage('mysql2', "source 'mysql'", importFrom('mysql2/promise')));
    expect(error.code).toBe('dependency_missing');
    expect(error.message).toContain("'mysql2'");
  });

  it('an installed package missing one of its own keeps its own error, which names that one', async () => {
    const error = await rejection(importOptionalPackage('half-installed', 'a test', importFrom('half-installed')));
    expect(error).not.toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain("'its-own-dependency'");
  });

  it('an error that is not about resolution passes through as it is', async () => {
    const thrown = new Error('a broken native binding');
    const error = await rejection(
      importOptionalPackage('pg', 'a test', async () => {
        throw thrown;
      }),
    );
    expect(error).toBe(thrown);
  });
});

describe('requireOptionalPackage', () => {
  it('require()\'s "Cannot find module" is the same configuration error', () => {
    const require = createRequire(from);
    let error: unknown;
    try {
      requireOptionalPackage('@duckdb/node-api', '`debug` (its local warehouse)', () => require('@duckdb/node-api'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).message).toBe(
      "`debug` (its local warehouse) needs the npm package '@duckdb/node-api', which is not installed",
    );
  });

  it('a package that loads is returned', () => {
    const require = createRequire(import.meta.url);
    expect(requireOptionalPackage('pg', 'a test', () => require('pg') as object)).toHaveProperty('Client');
  });
});
