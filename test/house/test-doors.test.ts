import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Tests go through a folder's door (its `index.ts`) as the rest of src/ does; a test of a folder's
 * internals (a matcher behind the secret registry, a command of cli/, which has no door) says so in
 * a one-line comment right above its import: `// internals: <why>`. A run of such imports one after
 * another shares one comment. Issue 39: a test that reached past a door unsaid kept internals from
 * being moved or renamed without reading every test first.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST = join(ROOT, 'test');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** An import of a src/ module that is no folder's `index.ts`, by the lines its statement spans (0-based). */
interface PastADoor {
  target: string;
  start: number;
  end: number;
}

/** The imports of `text` (a file at `path`, relative to the project) that reach past a door of src/. */
function pastTheDoors(path: string, text: string): PastADoor[] {
  const lines = text.split('\n');
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length - 1;
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName, pos }) => ({
      target: posix.normalize(posix.join(posix.dirname(path), fileName)),
      end: lineOf(pos),
    }))
    .filter(({ target }) => target.startsWith('src/') && !target.endsWith('/index.js') && target !== 'src/index.js')
    .map(({ target, end }) => {
      let start = end;
      // A static import spread over lines starts at its `import` keyword; a dynamic one is on one line.
      while (start > 0 && !/^\s*import\b|\bimport\(/.test(lines[start]!)) start -= 1;
      return { target, start, end };
    });
}

/** The imports past a door with no `// internals:` comment above them (or above the run they end). */
export function unsaid(path: string, text: string): string[] {
  const lines = text.split('\n');
  const found = pastTheDoors(path, text).sort((a, b) => a.start - b.start);
  const said = new Set<number>();
  for (const [index, entry] of found.entries()) {
    const above = lines[entry.start - 1] ?? '';
    const previous = found[index - 1];
    const inRun = previous !== undefined && previous.end === entry.start - 1 && said.has(index - 1);
    if (/^\s*\/\/ internals: \S/.test(above) || inRun) said.add(index);
  }
  return found.filter((_, index) => !said.has(index)).map(({ target, start }) => `${path}:${start + 1}: ${target}`);
}

describe('tests import src/ through its doors, or say why not (issue 39)', () => {
  it('finds an import past a door, and takes the comment above it, or above its run', () => {
    const at = 'test/x/y.test.ts';
    expect(
      unsaid(at, "import { a } from '../../src/secrets/index.js';\nimport { b } from '../../src/index.js';\n"),
    ).toEqual([]);
    expect(unsaid(at, "import {\n  b,\n} from '../../src/secrets/sparse.js';\n")).toEqual([
      'test/x/y.test.ts:1: src/secrets/sparse.js',
    ]);
    const run =
      "// internals: the matchers, alone\nimport { b } from '../../src/secrets/a.js';\nimport { c } from '../../src/secrets/b.js';\n";
    expect(unsaid(at, run)).toEqual([]);
    const dynamic = "const m = 1;\nconst { d } = await import('../../src/sources/rest.js');\n";
    expect(unsaid(at, dynamic)).toEqual(['test/x/y.test.ts:2: src/sources/rest.js']);
    expect(unsaid(at, `// internals: resolveUrl, not exported\n${dynamic.split('\n')[1]}\n`)).toEqual([]);
  });

  it('every test file', () => {
    const files = tsFiles(TEST).map((file) => relative(ROOT, file).split('\\').join('/'));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => unsaid(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
