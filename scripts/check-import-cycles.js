#!/usr/bin/env node
// Fails (exit 1) on any import cycle among the project's TypeScript files under src/: static
// imports, re-exports, `import type` and dynamic import() alike. A type-only cycle costs nothing at
// run time, but it is still two files that cannot be read, moved or tested one without the other.
// `npm run lint` runs it. It reads each file's import list with the TypeScript compiler's own
// pre-processor (no type checking: the whole tree takes well under a second) and resolves relative
// specifiers as tsc does for this project (`./x.js` is `./x.ts`, or `./x/index.ts`).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Cycles known when this check came (issue 23), in folders whose owners are breaking them: each is
 * the set of its files. Any other cycle fails; so does a listed one that is gone, so that the list
 * only shrinks (take its line out with the change that breaks it).
 */
const KNOWN = [];
const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src'];

/** Every .ts file below a folder (declaration files aside). */
function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names, or undefined for a package or a file outside the project. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), base];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile() && path.endsWith('.ts'));
}

const files = roots.flatMap((dir) => tsFiles(resolve(root, dir)));
const graph = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map((i) => resolveSpecifier(file, i.fileName)).filter((t) => t !== undefined);
    return [file, [...new Set(targets)]];
  }),
);

/** Tarjan's strongly connected components: each component of more than one file is a cycle. */
function components() {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (file) => {
    const own = { index, low: index, onStack: true };
    index++;
    state.set(file, own);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (!seen) {
        visit(next);
        own.low = Math.min(own.low, state.get(next).low);
      } else if (seen.onStack) own.low = Math.min(own.low, seen.index);
    }
    if (own.low !== own.index) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/** One path around a component, from its first file back to it: what a reader follows to break it. */
function cycleThrough(component) {
  const inside = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of graph.get(file) ?? []) {
      if (next === start) {
        const path = [file];
        for (let at = previous.get(file); at !== undefined; at = previous.get(at)) path.unshift(at);
        return [...path, start];
      }
      if (inside.has(next) && !previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

const setKey = (names) => [...names].sort().join(' ');
const known = new Set(KNOWN.map(setKey));
const cycles = components();
const named = (component) => cycleThrough(component).map((file) => relative(root, file));
const fresh = cycles.filter((component) => !known.has(setKey(component.map((file) => relative(root, file)))));
const present = new Set(cycles.map((component) => setKey(component.map((file) => relative(root, file)))));
const gone = roots.includes('src') ? KNOWN.filter((names) => !present.has(setKey(names))) : [];
for (const component of cycles.filter((c) => !fresh.includes(c)))
  console.log(`import cycle, known (being broken by its folder's owner): ${named(component).join(' → ')}`);
if (fresh.length > 0) {
  console.error(`import cycles: ${fresh.length} new (files that import each other, type-only imports included)`);
  for (const component of fresh) console.error(`  ${named(component).join(' → ')}`);
  process.exitCode = 1;
}
if (gone.length > 0) {
  for (const names of gone)
    console.error(`import cycle ${names.join(' ~ ')} is gone: take it out of KNOWN in scripts/check-import-cycles.js`);
  process.exitCode = 1;
}
if (!process.exitCode) console.log(`import cycles: no new one among ${files.length} files under ${roots.join(', ')}/`);
