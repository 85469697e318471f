import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of README.md and docs/ leads somewhere: the file exists, and a `#anchor`
 * names a heading of the target as GitHub slugs it. A page renamed or a section retitled breaks a
 * link silently otherwise (docs/production.md pointed at a "Deploying" section no page had).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Text outside fenced code blocks, where a `#` starts a heading. */
function unfenced(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** Text outside code, fenced or inline, where a link is a link. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** The relative links of a page: [text](target) with no scheme, each with its line. */
function relativeLinks(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  prose(text)
    .split('\n')
    .forEach((lineText, index) => {
      for (const [, target] of lineText.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
        if (!/^[a-z][a-z0-9+.-]*:/i.test(target!)) out.push({ target: target!, line: index + 1 });
    });
  return out;
}

/** What is wrong with each relative link of these pages ([] when every one resolves). */
function brokenLinks(pages: string[]): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    for (const { target, line } of relativeLinks(text)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      const where = `${relative(ROOT, page)}:${line}: ${target}`;
      if (!existsSync(file)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined || statSync(file).isDirectory()) continue;
      if (!file.endsWith('.md')) continue;
      if (!headingSlugs(readFileSync(file, 'utf8')).has(anchor)) problems.push(`${where}: no heading '#${anchor}'`);
    }
  }
  return problems;
}

describe('links between the docs', () => {
  const pages = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('every relative link of README.md and docs/ names a file that exists, and a heading that exists', () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(brokenLinks(pages)).toEqual([]);
  });

  it('slugs headings as GitHub does, and finds a link that leads nowhere', () => {
    expect(
      headingSlugs('# `connector-auth serve`: the host\n## An AWS access key (RDS, Aurora)\n## Notes\n## Notes\n'),
    ).toEqual(new Set(['connector-auth-serve-the-host', 'an-aws-access-key-rds-aurora', 'notes', 'notes-1']));
    expect(brokenLinks([join(ROOT, 'test/house/fixtures/broken-links.md')])).toEqual([
      'test/house/fixtures/broken-links.md:3: missing.md: no such file',
      "test/house/fixtures/broken-links.md:4: ../../../docs/production.md#deploying: no heading '#deploying'",
    ]);
  });
});
