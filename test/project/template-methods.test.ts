import { readFile, readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { connectionSpecification } from '../../src/hosts/airbyte/index.js';
import { describeConfiguration } from '../../src/project/index.js';

/**
 * Each template names the auth methods it offers (`auth` in connector.ts), so that a project `init`
 * makes offers those on the Fivetran form, in the Airbyte spec and in `validate`, and its README
 * lists those: every named method is one its source accepts, and the rest-api README's method table
 * is the list, row for row.
 */

const TEMPLATES = new URL('../../templates/', import.meta.url);

async function declared(template: string): Promise<{ source: string; auth: string[] }> {
  const code = await readFile(new URL(`${template}/connector.ts`, TEMPLATES), 'utf8');
  const source = /^ {2}source: '([a-z0-9-]+)',$/m.exec(code)?.[1];
  const auth = /^ {2}auth: \[([^\]]*)\],$/m.exec(code)?.[1];
  if (!source || auth === undefined) throw new Error(`templates/${template}/connector.ts names no source or auth`);
  return { source, auth: [...auth.matchAll(/'([a-z0-9_]+)'/g)].map((m) => m[1]!) };
}

describe('the templates name their methods', async () => {
  const templates = (await readdir(TEMPLATES, { withFileTypes: true })).filter((e) => e.isDirectory());

  it.each(templates.map((t) => t.name))('%s: each named method is offered, and only those', async (template) => {
    const { source, auth } = await declared(template);
    expect(auth.length).toBeGreaterThan(0);
    const description = await describeConfiguration({ source: source as never, auth: auth as never });
    // Offered in the catalogue's order: the same set, none the source refuses silently dropped.
    expect(new Set(description.methods.map((m) => m.name))).toEqual(new Set(auth));
    const spec = JSON.stringify(connectionSpecification(description, template));
    const inSpec = [...spec.matchAll(/"auth_method":\{"type":"string","const":"([a-z0-9_]+)"/g)].map((m) => m[1]);
    expect(new Set(inSpec)).toEqual(new Set(auth));
  });

  it("the rest-api README's method table lists the named methods, row for row", async () => {
    const { auth } = await declared('rest-api');
    const readme = await readFile(new URL('rest-api/README.md', TEMPLATES), 'utf8');
    const table = readme.slice(readme.indexOf('| auth_method |'));
    const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toHaveLength(auth.length);
    expect(new Set(rows)).toEqual(new Set(auth));
  });
});
