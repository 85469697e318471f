import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors/index.js';
import { initProject } from '../../src/project/index.js';
import { rejection } from '../helpers/rejection.js';

/**
 * `init` on real paths: a new directory is filled, a path that is a file is a configuration error;
 * the project's package.json (issue 38) depends on a tarball of this package in vendor/, or with
 * `registry` on the registry's, with its template's SDK and, for development, DuckDB.
 */

const own = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

interface ProjectManifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const manifestOf = async (project: string) =>
  JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as ProjectManifest;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'init-project-test-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('initProject', () => {
  it('fills a new directory with the template', async () => {
    const result = await initProject(join(dir, 'new'), 'rest-api');
    expect(result.files).toContain('configuration.json');
    expect(result.files).toContain('.gitignore');
  });

  it('a path that is a file: ConfigurationError (exit 2) naming the path, the file untouched', async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'mine');
    const error = await rejection(initProject(file, 'rest-api'));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('init_target_not_directory');
    expect(error.message).toContain(file);
    expect(await readdir(dir)).toEqual(['notes.txt']);
  });

  it('a path below a file: the same ConfigurationError', async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'mine');
    const error = await rejection(initProject(join(file, 'project'), 'rest-api'));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(join(file, 'project'));
  });

  it('issue 38: by default, connector-auth is a tarball of this package in vendor/, packed with its own `files`', async () => {
    const project = join(dir, 'vendored');
    const result = await initProject(project, 'database');
    const tarball = `connector-auth-${own.version}.tgz`;
    expect(result.files).toContain('vendor');
    expect(await readdir(join(project, 'vendor'))).toEqual([tarball]);
    expect(await manifestOf(project)).toMatchObject({
      dependencies: { 'connector-auth': `file:vendor/${tarball}`, pg: own.devDependencies.pg },
      devDependencies: {
        '@duckdb/node-api': own.devDependencies['@duckdb/node-api'],
        typescript: own.devDependencies.typescript,
        '@types/node': own.devDependencies['@types/node'],
      },
    });
    // The packed list is the package's own (what npm pack of the checkout gives), not the folder.
    const list = async (spec: string) => {
      const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', spec], {
        cwd: dir,
        maxBuffer: 16 * 1024 * 1024,
      });
      return (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path).sort();
    };
    const packed = await list(join(project, 'vendor', tarball));
    expect(packed).toEqual(await list(new URL('../..', import.meta.url).pathname));
    expect(packed).not.toContain('test/project/init-project.test.ts');
    // vendor/ is part of the project: neither git nor a container build leaves it out.
    for (const ignore of ['.gitignore', '.dockerignore'])
      expect(await readFile(join(project, ignore), 'utf8')).not.toMatch(/vendor/);
  });

  it('issue 38: with `registry`, connector-auth at ^version from the registry, and no vendor/', async () => {
    const project = join(dir, 'registry');
    const result = await initProject(project, 'file-storage', { registry: true });
    expect(result.files).not.toContain('vendor');
    const manifest = await manifestOf(project);
    expect(manifest.dependencies).toEqual({
      'connector-auth': `^${own.version}`,
      '@aws-sdk/client-s3': own.devDependencies['@aws-sdk/client-s3'],
    });
    expect(Object.keys(manifest.devDependencies).sort()).toEqual(['@duckdb/node-api', '@types/node', 'typescript']);
  });

  it('issue 38: each template depends on optional peers of this package only, DuckDB never in production', async () => {
    for (const template of ['rest-api', 'database', 'file-storage', 'pipeline-metadata']) {
      const project = join(dir, `peers-${template}`);
      await initProject(project, template, { registry: true });
      const { dependencies } = await manifestOf(project);
      for (const name of Object.keys(dependencies).filter((name) => name !== 'connector-auth')) {
        expect(own.peerDependencies[name], `${template}: ${name}`).toBeDefined();
      }
      expect(dependencies['@duckdb/node-api']).toBeUndefined();
    }
  });

  it('issue 38: npm not found: ConfigurationError (exit 2) saying so and naming --registry, the directory left empty', async () => {
    const project = join(dir, 'no-npm');
    const empty = join(dir, 'empty-path');
    await mkdir(empty);
    const path = process.env.PATH;
    process.env.PATH = empty;
    let error;
    try {
      error = await rejection(initProject(project, 'rest-api'));
    } finally {
      process.env.PATH = path;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('init_pack_failed');
    expect(error.hint).toContain('--registry');
    expect(await readdir(project)).toEqual([]);
  });
});
