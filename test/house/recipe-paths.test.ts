import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every path a recipe (docs/recipes/) names in code, `src/…`, `test/…`, `scripts/…` or `docs/…`, is
 * there: a file renamed without its recipe (issue 39 renamed the auth methods' and sources' tables)
 * would send a newcomer to a file that does not exist. A path with a placeholder (`<name>`) is a
 * pattern, not a file. Links are test/house/doc-links.test.ts's.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECIPES = join(ROOT, 'docs', 'recipes');

/** The project paths a page names in inline code, trailing punctuation and `:line` dropped. */
export function namedPaths(text: string): string[] {
  return [...text.matchAll(/`((?:src|test|scripts|docs)\/[^`\s]*)`/g)]
    .map((match) => match[1]!.replace(/[.,:;]+$/, ''))
    .filter((path) => !/[<>*]/.test(path));
}

describe('the recipes name files that exist', () => {
  const pages = readdirSync(RECIPES).filter((name) => name.endsWith('.md'));

  it('finds the paths it checks, and a path that is not there', () => {
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(namedPaths('in `src/auth/built-in-methods.ts`: `src/hosts/<name>/`, `test/x.ts`.')).toEqual([
      'src/auth/built-in-methods.ts',
      'test/x.ts',
    ]);
  });

  it.each(pages)('docs/recipes/%s', (page) => {
    const paths = namedPaths(readFileSync(join(RECIPES, page), 'utf8'));
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
