import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A copy of the project (its files, not node_modules, dist/ or .git: node_modules is linked) under the
 * project's `.tmp/`, on which a recipe test makes exactly the edits its recipe lists and nothing else,
 * then runs what would catch a missing step: the type-check, the lint, the house tests and the tests
 * that keep the generated docs current. If the recipe were missing a step, one of them would fail on
 * the copy; `without` shows that it does, one step left out at a time.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = (path: string) => join(ROOT, 'node_modules', path);
/** Not copied: installed, built or kept by git; node_modules is linked instead. */
const LEFT_OUT = new Set(['node_modules', 'dist', '.git', '.tmp', 'coverage']);

/**
 * The tests a recipe's edits can break besides its own: the house rules and the docs generated from the
 * key and error catalogues (issue 39). They read the copy's src/ and docs/ through paths of their own.
 */
export const HOUSE_AND_DOC_TESTS = [
  'test/house',
  'test/config/key-catalogue.test.ts',
  'test/errors/error-catalogue.test.ts',
];

export interface ProjectCopy {
  dir: string;
  /** Writes a new file, at a path relative to the copy's root (its folder made when new). */
  add(path: string, text: string): Promise<void>;
  /** Inserts `text` right after `anchor` in a file of the copy; the anchor must be there once. */
  insertAfter(path: string, anchor: string, text: string): Promise<void>;
  /** Runs one of the copy's scripts as a recipe says to: `npx tsx scripts/<name>`. */
  script(name: string): Promise<void>;
  /** The type-check of the copy's src/ with the project's build settings: tsc's findings, '' when none. */
  typeCheck(): Promise<string>;
  /** `npm run lint`'s steps over the copy's src/ (ESLint, Prettier, import cycles, long functions): '' when clean. */
  lint(): Promise<string>;
  /** Runs test files of the copy (paths from its root) with the project's runner: '' when all pass, else its report. */
  test(files?: readonly string[]): Promise<string>;
  /**
   * Runs `check` with one edit of the recipe undone: the file as the project has it, or gone when the
   * recipe made it; the recipe's version is put back after.
   */
  without<T>(path: string, check: () => Promise<T>): Promise<T>;
  /** Imports a module of the copy's src/ (its TypeScript, as the test runner transforms it). */
  load<T>(path: string): Promise<T>;
  remove(): Promise<void>;
}

/** Runs a command in the copy: what it printed when it failed, '' when it succeeded. */
function findings(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve(error ? `${args.join(' ')}: exit ${error.code}\n${stdout}${stderr}` : ''),
    );
  });
}

/** The environment without the outer test runner's own variables, so the copy's runner starts afresh. */
function freshEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TEST$|NODE_ENV$)/.test(name)));
}

export async function copyProject(name: string): Promise<ProjectCopy> {
  const dir = join(ROOT, '.tmp', `recipe-${name}-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  try {
    for (const entry of await readdir(ROOT))
      if (!LEFT_OUT.has(entry)) await cp(join(ROOT, entry), join(dir, entry), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } catch (error) {
    // A copy half made is no copy: nothing would remove it from .tmp/ otherwise.
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const file = (path: string) => join(dir, path);
  const run = (...args: string[]) => findings(dir, args);
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
    async script(name) {
      const failed = await run(BIN('tsx/dist/cli.mjs'), join('scripts', name));
      if (failed) throw new Error(failed);
    },
    typeCheck: () => run(BIN('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noEmit'),
    async lint() {
      const steps = [
        [BIN('eslint/bin/eslint.js'), 'src'],
        [BIN('prettier/bin/prettier.cjs'), '--check', 'src'],
        ['scripts/check-import-cycles.js', 'src'],
        ['scripts/long-functions.js', 'src', '--fail-under', 'src/sources'],
      ];
      const found = [];
      for (const step of steps) found.push(await run(...step));
      return found.join('');
    },
    test: (files = HOUSE_AND_DOC_TESTS) =>
      findings(dir, [BIN('vitest/vitest.mjs'), 'run', ...files], freshEnvironment()),
    async without(path, check) {
      const recipes = await readFile(file(path), 'utf8');
      const original = join(ROOT, path);
      if (existsSync(original)) await writeFile(file(path), await readFile(original));
      else await rm(file(path));
      try {
        return await check();
      } finally {
        await writeFile(file(path), recipes);
      }
    },
    load: (path) => import(file(join('src', path))),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
