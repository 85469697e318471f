import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readState, writeStateAtomically } from '../../../src/hosts/local/index.js';

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'state-file-test-'));
  path = join(dir, 'state.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const posix = process.platform !== 'win32';

describe('readState', () => {
  it('returns {} when there is no file', async () => {
    expect(await readState(path)).toEqual({});
  });

  it('refuses a file that is not JSON, naming the path and not the content', async () => {
    await writeFile(path, '{"token": "s3cr3t-value"');
    const error = (await readState(path).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(path);
    expect(error.message).not.toContain('s3cr3t');
  });

  it('reads a state file that starts with a UTF-8 byte order mark', async () => {
    await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"cursor": "2024-06-01"}')]));
    expect(await readState(path)).toEqual({ cursor: '2024-06-01' });
  });

  it('refuses JSON that is not an object', async () => {
    for (const text of ['[1,2]', '"text"', 'null', '42']) {
      await writeFile(path, text);
      await expect(readState(path)).rejects.toThrow(`the state file ${path} does not hold a JSON object`);
    }
  });

  it('refuses a path it cannot read', async () => {
    await mkdir(path);
    await expect(readState(path)).rejects.toThrow(path);
  });
});

describe('writeStateAtomically', () => {
  it('round-trips, written as JSON.stringify(state, null, 2)', async () => {
    const state = { cursor: '2024-01-01T00:00:00Z', pages: [1, 2], nested: { done: true, n: null } };
    await writeStateAtomically(path, state);
    expect(await readFile(path, 'utf8')).toBe(JSON.stringify(state, null, 2));
    expect(await readState(path)).toEqual(state);
    await writeStateAtomically(path, { cursor: 'next' });
    expect(await readState(path)).toEqual({ cursor: 'next' });
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('creates the parent directory', async () => {
    const nested = join(dir, 'a', 'b', 'state.json');
    await writeStateAtomically(nested, { x: 1 });
    expect(await readState(nested)).toEqual({ x: 1 });
  });

  it('removes the temporary file when the write fails', async () => {
    await mkdir(path);
    await writeFile(join(path, 'occupied'), 'x'); // renaming a file over a non-empty directory fails
    const error = (await writeStateAtomically(path, { a: 1 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(path);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a state that is not JSON-serializable, writing nothing', async () => {
    await expect(writeStateAtomically(path, undefined)).rejects.toThrow(path);
    await expect(writeStateAtomically(path, { big: 1n })).rejects.toThrow(TypeError);
    expect(await readdir(dir)).toEqual([]);
  });

  it.runIf(posix)('creates the file with mode 0600 and keeps the mode of a file it replaces', async () => {
    await writeStateAtomically(path, { a: 1 });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await chmod(path, 0o640);
    await writeStateAtomically(path, { a: 2 });
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    expect(await readState(path)).toEqual({ a: 2 });
  });

  it('concurrent writers leave one complete state and no temporary files', async () => {
    const states = Array.from({ length: 20 }, (_, i) => ({ writer: i, payload: 'x'.repeat(10_000 + i) }));
    await Promise.all(states.map((state) => writeStateAtomically(path, state)));
    const final = await readState(path);
    expect(states).toContainEqual(final);
    expect(await readdir(dir)).toEqual(['state.json']);
  });
});
