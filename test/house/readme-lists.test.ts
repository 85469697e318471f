import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Each folder's README.md lists its files (docs/architecture.md), and nothing else checked it: 52 files
 * had no line, so a recipe's step "add its line to the folder's README" could be left out unseen
 * (issue 39). Each layer (a folder right under src/) has a README.md; a folder without one is listed
 * in its nearest ancestor's, the README that covers it. A README names a file in inline code, by its
 * name (`token-cache.ts`) or by a path ending in it (`tokens/token-cache.ts`), and a folder by its
 * name and a slash (`tokens/`), in inline code or heading a section (`## tokens/ (…)`); so a name
 * shared by files of several subfolders (each family's `index.ts`) is named once for all of them. A name that no longer matches a file or folder under the
 * README's folder, or one of src/ by its path from src/ (`connector/run/host.ts`), the project's root
 * (`src/…`) or the README (`../…`), is a stale line. Names in `bin/`, `docs/`, `scripts/` and `test/` are
 * outside src/, and a name with a placeholder (`<project>/connector.ts`) is no file of ours.
 * src/index.ts, the package's door, is docs/architecture.md's and no README's.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** What a README names: files and folders in inline code (`x.ts`, `a/x.ts`, `x/`, `a/x/`), folders heading a section (`## x/`). */
export function namesIn(text: string): string[] {
  const inline = [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  const headings = [...text.matchAll(/^#+ ([\w.-]+(?:\/[\w.-]+)*\/)(?:\s|$)/gm)].map((match) => match[1]!);
  return [...inline, ...headings].filter((name) => /^[\w.-]+(\/[\w.-]+)*(\.ts|\/)$/.test(name));
}

/** Folders of the project's root, besides src/, that READMEs point to. */
const OUTSIDE = ['bin/', 'docs/', 'scripts/', 'test/'];

/** Does `name` (as a README at `readme` spells it) name `path` (from src/, a folder's ending in `/`)? */
function names(readme: string, path: string, name: string): boolean {
  const below = path.slice(readme.length + 1);
  return below === name || below.endsWith(`/${name}`);
}

/** The folders of `files` (paths from src/), src/ itself left out, each with its parents. */
function foldersOf(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files)
    for (let folder = posix.dirname(file); folder !== '.'; folder = posix.dirname(folder)) folders.add(folder);
  return [...folders].sort();
}

/**
 * What is wrong with the READMEs of a tree: `files`, the .ts files' paths from src/, and `readmes`,
 * each README.md's text by its folder (from src/). One line each: a layer with no README, a file or
 * folder its README does not name, a name in a README with nothing under it.
 */
export function readmeFindings(files: readonly string[], readmes: Readonly<Record<string, string>>): string[] {
  const folders = foldersOf(files);
  const covering = (folder: string): string | undefined => {
    for (let at = folder; at !== '.'; at = posix.dirname(at)) if (readmes[at] !== undefined) return at;
    return undefined;
  };
  const unnamed = (readme: string, path: string) =>
    !namesIn(readmes[readme]!).some((name) => names(readme, path, name));
  const found: string[] = [];
  for (const layer of folders.filter((folder) => !folder.includes('/') && readmes[folder] === undefined))
    found.push(`src/${layer}/ has no README.md`);
  for (const file of files) {
    const readme = covering(posix.dirname(file));
    if (readme !== undefined && unnamed(readme, file))
      found.push(`src/${file} is not named in src/${readme}/README.md`);
  }
  for (const folder of folders) {
    const readme = covering(posix.dirname(folder));
    if (readme !== undefined && unnamed(readme, `${folder}/`))
      found.push(`src/${folder}/ is not named in src/${readme}/README.md`);
  }
  const paths = ['', ...files, ...folders.map((folder) => `${folder}/`)];
  for (const readme of Object.keys(readmes).sort())
    for (const name of namesIn(readmes[readme]!).filter((name) => !OUTSIDE.some((out) => name.startsWith(out))))
      if (!isThere(readme, name, paths)) found.push(`src/${readme}/README.md names \`${name}\`, which is not there`);
  return found;
}

/** Is what a README at `readme` names there, among `paths` (from src/; src/ itself is '')? */
function isThere(readme: string, name: string, paths: readonly string[]): boolean {
  if (name.startsWith('src/')) return paths.includes(name.slice('src/'.length));
  if (name.startsWith('../')) return paths.includes(posix.join(readme, name));
  return (
    (name.includes('/') && paths.includes(name)) ||
    paths.some((path) => path.startsWith(`${readme}/`) && names(readme, path, name))
  );
}

/** The .ts files under `dir`, by their paths from src/. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path).split('\\').join('/')] : [];
  });
}

describe("each folder's README.md names its files and folders, and nothing that is gone (issue 39)", () => {
  it('finds a file, a folder and a layer left out, and a stale name, on an inline tree', () => {
    const files = ['index.ts', 'auth/index.ts', 'auth/a.ts', 'auth/static/b.ts', 'auth/own/c.ts', 'log/d.ts'];
    const readmes = { auth: '- `index.ts`, `a.ts`\n\n## static/ (b)\n\n`b.ts`\n', 'auth/own': '`c.ts`' };
    expect(readmeFindings(files, readmes)).toEqual([
      'src/log/ has no README.md',
      'src/auth/own/ is not named in src/auth/README.md',
    ]);
    const stale = {
      ...readmes,
      auth: `${readmes.auth}\`gone.ts\`, \`own/\`, \`static/gone/\`, \`log/d.ts\`, \`../log/\`, \`src/\`, \`bin/\``,
      'auth/own': '`c.ts`, `../a.ts`, `../static/`, `src/log/`, `<project>/connector.ts`',
    };
    expect(readmeFindings(files.slice(0, 5), stale)).toEqual([
      'src/auth/README.md names `gone.ts`, which is not there',
      'src/auth/README.md names `static/gone/`, which is not there',
      'src/auth/README.md names `log/d.ts`, which is not there',
      'src/auth/README.md names `../log/`, which is not there',
      'src/auth/own/README.md names `src/log/`, which is not there',
    ]);
    expect(readmeFindings(['auth/static/b.ts'], { auth: '`static/b.ts` and `static/`' })).toEqual([]);
    expect(readmeFindings(['index.ts', 'auth/a.ts'], { auth: '`a.ts`, `index.ts`' })).toEqual([
      'src/auth/README.md names `index.ts`, which is not there',
    ]);
    expect(readmeFindings(['auth/static/b.ts'], { auth: '`b.ts` in `static`' })).toEqual([
      'src/auth/static/ is not named in src/auth/README.md',
    ]);
  });

  it('every file and folder under src/', () => {
    const files = tsFiles(SRC);
    const readmes = Object.fromEntries(
      foldersOf(files)
        .filter((folder) => existsSync(join(SRC, folder, 'README.md')))
        .map((folder) => [folder, readFileSync(join(SRC, folder, 'README.md'), 'utf8')]),
    );
    expect(files.length).toBeGreaterThan(300);
    expect(Object.keys(readmes).length).toBeGreaterThan(10);
    expect(readmeFindings(files, readmes)).toEqual([]);
  });
});
