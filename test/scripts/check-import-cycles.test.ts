import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `npm run lint`'s cycle check (scripts/check-import-cycles.js), on trees written for the test and on the project. */

const SCRIPT = fileURLToPath(new URL('../../scripts/check-import-cycles.js', import.meta.url));
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-cycles-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const check = (...dirs: string[]) => spawnSync(process.execPath, [SCRIPT, ...dirs], { encoding: 'utf8' });

describe('check-import-cycles', () => {
  it('fails on a cycle made of type-only imports, naming the path around it', async () => {
    const dir = await tree('types', {
      'a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
      'c.ts': "import type { A } from './a.js';\nexport type C = A;\n",
    });
    const run = check(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/1 new/);
    expect(run.stderr).toMatch(/types\/a\.ts → .*types\/b\.ts → .*types\/a\.ts/);
    expect(run.stderr).not.toContain('c.ts');
  });

  it("follows re-exports, dynamic import() and a folder's index.ts", async () => {
    const dir = await tree('lazy', {
      'catalogue.ts': "export const load = () => import('./family/index.js');\n",
      'family/index.ts': "export { member } from './member.js';\n",
      'family/member.ts': "import { load } from '../catalogue.js';\nexport const member = load;\n",
    });
    const run = check(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('catalogue.ts');
    expect(run.stderr).toContain('family/member.ts');
  });

  it('passes a tree without a cycle, packages and missing files aside', async () => {
    const dir = await tree('clean', {
      'a.ts': "import { z } from 'zod';\nimport { b } from './b.js';\nexport const a = [z, b];\n",
      'b.ts': "import { gone } from './gone.js';\nexport const b = gone;\n",
    });
    const run = check(dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it("the project's own tree has no cycle but the known ones", () => {
    const run = check('src', 'test', 'bench');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
