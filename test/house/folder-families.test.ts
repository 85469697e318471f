import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 23's house rules, over every folder under src/: a folder (a layer, or a family inside one) has an
 * `index.ts`, and every file outside it — in its own layer or another — reaches it through that index
 * only; no file holds more than 300 lines. A move that breaks one of these
 * is caught here, with the file to fix, rather than by a newcomer. A new folder is covered the day it is
 * made: nothing here lists the folders to check.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
/**
 * A file this long mixes concepts. Folders have no cap on files: a folder holds one concept's files,
 * however many (issue 39: a cap moved size into functions and split concepts by count).
 */
const MAX_LINES = 300;

/**
 * Folders that are no door: `cli` is the entry point (bin/ runs cli/main.ts; nothing imports it), and
 * `hosts` only groups the hosts, each of which is its own door. Nothing outside them may import their
 * own files; their subfolders are doors like any other.
 */
const NO_DOOR = ['cli', 'hosts'];

/**
 * Tables of lazy loaders whose `import()`s may name one module inside a family: the built-in methods' table loads
 * only the method a configuration names, and going through the family's door would load its siblings
 * too (the whole of oauth/ for one grant). Only dynamic imports, and only from these files.
 */
const LAZY_TABLES = ['auth/built-in-methods.ts'];

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
  return [...text.matchAll(/(from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((match) => ({
    from,
    lazy: match[1] === 'import(',
    to: posix.normalize(posix.join(posix.dirname(from), match[2]!)).replace(/\.js$/, '.ts'),
  }));
});

/** Every folder under src/, src/ itself left out (src/index.ts is the package's door). */
const all = folders(src).slice(1).map(fromSrc);
const doors = all.filter((folder) => !NO_DOOR.includes(folder));

/** Imports from outside `folder` into it. */
const entering = (folder: string) =>
  imports.filter(({ from, to }) => !from.startsWith(`${folder}/`) && to.startsWith(`${folder}/`));

const described = ({ from, to }: { from: string; to: string }) => `${from} imports ${to}`;

describe('every folder under src/ is a family with one door (issue 23)', () => {
  it('finds the folders it checks, so that the checks below cannot pass on nothing', () => {
    expect(doors).toEqual(
      expect.arrayContaining([
        'auth/oauth',
        'config/keys',
        'connector/run',
        'hosts/airbyte/read',
        'cli/commands/project',
        'network/tls',
        'sources/rest',
      ]),
    );
    expect(imports.length).toBeGreaterThan(500);
  });

  it.each(doors)('%s has an index.ts, its only door for files outside it', (folder) => {
    expect(existsSync(join(src, folder, 'index.ts')), `${folder}/index.ts`).toBe(true);
    const bySide = entering(folder).filter(
      ({ from, to, lazy }) => to !== `${folder}/index.ts` && !(lazy && LAZY_TABLES.includes(from)),
    );
    expect(bySide.map(described)).toEqual([]);
  });

  it.each(NO_DOOR)('%s, which is no door, is entered only through the doors of its subfolders', (folder) => {
    const ownFiles = entering(folder).filter(({ to }) => posix.dirname(to) === folder);
    expect(ownFiles.map(described)).toEqual([]);
  });

  it.each(all)(`src/%s: no file over ${MAX_LINES} lines`, (folder) => {
    const dir = join(src, folder);
    const files = readdirSync(dir).filter((name) => statSync(join(dir, name)).isFile());
    const long = files
      .filter((name) => name.endsWith('.ts'))
      .map((name) => ({
        file: `${folder}/${name}`,
        lines: readFileSync(join(dir, name), 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it(`src/ itself: no file over ${MAX_LINES} lines`, () => {
    const long = readdirSync(src)
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => readFileSync(join(src, name), 'utf8').split('\n').length - 1 > MAX_LINES);
    expect(long).toEqual([]);
  });
});
