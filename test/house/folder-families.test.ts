import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 23's house rules for the folders that were split into families (network, clients,
 * emulator, the fivetran host, sources): a family is a subfolder with an `index.ts`, and every file
 * outside it — in its own layer or another — reaches it through that index only; no folder holds more than
 * ten files, no file more than 300 lines. A move that breaks one of these is caught here, with the
 * file to fix, rather than by a newcomer. Other folders join the list once they are split.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
const SPLIT = ['network', 'clients', 'emulator', 'hosts/fivetran', 'sources'];
const MAX_FILES = 10;
const MAX_LINES = 300;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function folders(dir: string): string[] {
  const below = readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory());
  return [dir, ...below.flatMap(folders)];
}

/** Paths relative to src/, with forward slashes, as imports spell them. */
const fromSrc = (path: string) => relative(src, path).split('\\').join('/');

/** Every relative import of every src file, resolved to a path relative to src/. */
const imports = tsFiles(src).flatMap((file) => {
  const from = fromSrc(file);
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((match) => ({
    from,
    to: posix.normalize(posix.join(posix.dirname(from), match[1]!)).replace(/\.js$/, '.ts'),
  }));
});

const families = SPLIT.flatMap((folder) => folders(join(src, folder)).slice(1)).map(fromSrc);

describe('folders split into families (issue 23)', () => {
  it('lists the families it checks, so that the checks below cannot pass on nothing', () => {
    expect(families).toEqual(
      expect.arrayContaining([
        'network/ssh',
        'network/tls',
        'clients/pipeline',
        'emulator/routes',
        'hosts/fivetran/calls',
        'sources/rest',
      ]),
    );
  });

  it.each(families)('%s has an index.ts, its only door for files outside it', (family) => {
    expect(tsFiles(join(src, family)).map(fromSrc)).toContain(`${family}/index.ts`);
    const enteredBySide = imports.filter(
      ({ from, to }) => !from.startsWith(`${family}/`) && to.startsWith(`${family}/`) && to !== `${family}/index.ts`,
    );
    expect(enteredBySide.map(({ from, to }) => `${from} imports ${to}`)).toEqual([]);
  });

  it.each(SPLIT)(`src/%s: no folder over ${MAX_FILES} files, no file over ${MAX_LINES} lines`, (folder) => {
    for (const dir of folders(join(src, folder))) {
      const files = readdirSync(dir).filter((name) => statSync(join(dir, name)).isFile());
      expect(files.length, fromSrc(dir)).toBeLessThanOrEqual(MAX_FILES);
    }
    const long = tsFiles(join(src, folder))
      .map((file) => ({ file: fromSrc(file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
