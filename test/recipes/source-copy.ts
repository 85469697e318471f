import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A copy of `src/` under the project's `.tmp/` (so the copy still finds node_modules), on which a
 * recipe test makes exactly the edits its recipe lists and nothing else: if the recipe were missing
 * a step, the copy would not work.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface SourceCopy {
  dir: string;
  /** Writes a new file, at a path relative to the copy's `src/` (its folder made when new). */
  add(path: string, text: string): Promise<void>;
  /** Inserts `text` right after `anchor` in a file of the copy; the anchor must be there once. */
  insertAfter(path: string, anchor: string, text: string): Promise<void>;
  /** The type-check of the copy's `src/` with the project's settings: tsc's findings, '' when none. */
  typeCheck(): Promise<string>;
  /** Imports a module of the copy (its TypeScript, as the test runner transforms it). */
  load<T>(path: string): Promise<T>;
  remove(): Promise<void>;
}

export async function copySource(name: string): Promise<SourceCopy> {
  const dir = join(ROOT, '.tmp', `recipe-${name}-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  await cp(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  const file = (path: string) => join(dir, 'src', path);
  return {
    dir,
    async add(path, text) {
      await mkdir(dirname(file(path)), { recursive: true });
      await writeFile(file(path), text);
    },
    async insertAfter(path, anchor, text) {
      const before = await readFile(file(path), 'utf8');
      const at = before.indexOf(anchor);
      if (at < 0 || before.indexOf(anchor, at + 1) >= 0)
        throw new Error(`the recipe's anchor is not in ${path} exactly once: ${anchor}`);
      const end = at + anchor.length;
      await writeFile(file(path), before.slice(0, end) + text + before.slice(end));
    },
    async typeCheck() {
      const settings = {
        extends: '../../tsconfig.build.json',
        compilerOptions: { noEmit: true, rootDir: 'src' },
        include: ['src'],
      };
      await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(settings));
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      return new Promise((resolve) => {
        execFile(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], (_error, stdout, stderr) =>
          resolve(stdout + stderr),
        );
      });
    },
    load: (path) => import(file(path)),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
