// What of dist/ goes into the package (`npm pack`, `npm publish`): `npm run build` runs this after
// the bundle. package.json's `files` names dist/ whole; the dist/.npmignore written here keeps only
// what a user of the package loads or reads:
//
// - dist/bundle/: the code that runs (our chunks, zod's, DuckDB's and gRPC's bundled JavaScript, the
//   partner SDK's protocol as a JSON descriptor) and its source maps, which `--verbose` uses to name
//   the shipped src/*.ts lines;
// - the declarations the `exports` map names, and every declaration they import (an editor's and
//   tsc's view of the package);
// - the loader hooks' per-file modules (dist/project/loader/connector-hooks.js and its imports),
//   which Node loads by URL from tsc's output, not from the bundle, and the image entrypoint's
//   (dist/cli/image-entrypoint.js), which bin/connector-auth-image.js imports before the CLI.
//
// Everything else tsc writes (per-file JavaScript the bundle replaced, declaration maps, the
// declarations of internal modules no public type reaches) stays in the checkout. A subfolder's
// .npmignore applies inside `files` (npm's documented rule), and npm does not ship the file itself.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const HOOKS = join(DIST, 'project', 'loader', 'connector-hooks.js');
const IMAGE_ENTRYPOINT = join(DIST, 'cli', 'image-entrypoint.js');

/** The declarations `roots` reach, as TypeScript resolves them: the same files a consumer's tsc reads. */
function declarationClosure(roots) {
  const program = ts.createProgram(roots, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    types: [],
  });
  return program
    .getSourceFiles()
    .map((file) => resolve(file.fileName))
    .filter((file) => file.startsWith(`${DIST}/`) && !file.includes('/node_modules/'));
}

/** The JavaScript files of ours `roots` load: every relative specifier of an import, export or import(). */
function moduleClosure(roots) {
  const seen = new Set();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const visit = (node) => {
      const specifier =
        ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
          ? node.moduleSpecifier
          : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
            ? node.arguments[0]
            : undefined;
      if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
        queue.push(resolve(dirname(file), specifier.text));
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  }
  return [...seen];
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const typeRoots = Object.values(manifest.exports)
  .filter((target) => typeof target === 'object' && target.types)
  .map((target) => join(ROOT, target.types));
if (typeRoots.length === 0) throw new Error('package.json exports name no types: update scripts/package-contents.js');

const kept = [...declarationClosure(typeRoots), ...moduleClosure([HOOKS, IMAGE_ENTRYPOINT])].map(
  (file) => `/${relative(DIST, file).split('\\').join('/')}`,
);
const missing = kept.filter((file) => !existsSync(join(DIST, file)));
if (missing.length > 0) throw new Error(`package-contents: not built: ${missing.join(', ')}`);
const lines = [
  '# Written by scripts/package-contents.js (npm run build): what npm pack takes from dist/.',
  '*',
  '!*/',
  '!/bundle/*.js',
  '!/bundle/*.cjs',
  '!/bundle/*.json',
  '!/bundle/*.js.map',
  ...kept.sort().map((file) => `!${file}`),
];
writeFileSync(join(DIST, '.npmignore'), `${lines.join('\n')}\n`);
