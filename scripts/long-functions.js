#!/usr/bin/env node
// Lists the functions, methods and arrow functions longer than a limit (60 lines unless
// `--max N`) under the folders given (src/ unless named), longest first, and prints their count.
// A nested function is counted on its own and inside its parent: a long closure stays long until
// its steps are named outside it. It reports and exits 0; `--fail-under <folder>` makes it exit 1
// when a function under that folder is over the limit (for a folder that has reached 0).
// Reads each file with the TypeScript compiler's parser only (no type checking).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `--max N`, `--fail-under folder` (repeatable) and the folders to read. */
function parseArguments(argv) {
  const options = { max: 60, failUnder: [], folders: [] };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--max') options.max = Number(argv[(i += 1)]);
    else if (argv[i] === '--fail-under') options.failUnder.push(argv[(i += 1)]);
    else options.folders.push(argv[i]);
  }
  if (options.folders.length === 0) options.folders.push('src');
  return options;
}

/** Every .ts file below a folder (declaration files aside). */
function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A readable name: the declaration's own, or the variable, property or class member it is assigned to. */
function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    if (ts.isIdentifier(parent.name)) return parent.name.text;
  }
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The functions of one file with a body longer than `max` lines (declaration to closing brace). */
function longFunctions(path, max) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ file: relative(root, path), line: first + 1, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const options = parseArguments(process.argv.slice(2));
const found = options.folders
  .flatMap((folder) => tsFiles(resolve(root, folder)))
  .flatMap((path) => longFunctions(path, options.max))
  .sort((a, b) => b.lines - a.lines);
for (const { file, line, name, lines } of found) console.log(`${String(lines).padStart(4)}  ${file}:${line}  ${name}`);
console.log(`${found.length} functions over ${options.max} lines in ${options.folders.join(', ')}`);
const failing = found.filter(({ file }) =>
  options.failUnder.some((folder) => file.startsWith(`${folder.replace(/\/$/, '')}/`)),
);
if (failing.length > 0) {
  console.error(`${failing.length} of them under ${options.failUnder.join(', ')}, which must have none`);
  process.exitCode = 1;
}
