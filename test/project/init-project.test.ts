import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors/index.js';
import { initProject } from '../../src/project/init-project.js';
import { rejection } from '../helpers/rejection.js';

/** `init` on real paths: a new directory is filled, a path that is a file is a configuration error. */

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
});
