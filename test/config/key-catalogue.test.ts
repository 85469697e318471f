import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AUTH_METHOD_NAMES, loadAuthMethod } from '../../src/auth/index.js';
import { KEY_CATALOGUE, isSecretKey } from '../../src/config/index.js';
import { SOURCE_NAMES, loadSource } from '../../src/sources/index.js';
import { renderConfigurationDoc } from '../../scripts/configuration-doc.js';

describe('key catalogue', () => {
  it('declares every key that an auth method or a source reads', async () => {
    const schemas: [string, z.ZodType][] = [];
    for (const name of AUTH_METHOD_NAMES) schemas.push([name, (await loadAuthMethod(name)).keys]);
    for (const name of SOURCE_NAMES) schemas.push([name, (await loadSource(name)).keys]);
    for (const [name, schema] of schemas) {
      const shape = objectShape(schema);
      for (const key of Object.keys(shape)) expect(KEY_CATALOGUE, `${name} reads '${key}'`).toHaveProperty(key);
    }
  });

  it('treats undeclared keys as secret by their names only', () => {
    expect(isSecretKey('token_url')).toBe(false);
    expect(isSecretKey('credential_issued_at')).toBe(false);
    expect(isSecretKey('client_secret')).toBe(true);
    expect(isSecretKey('my_service_password')).toBe(true);
    expect(isSecretKey('page_size')).toBe(false);
    expect(isSecretKey('tenant', new Set(['tenant']))).toBe(true);
  });

  it('docs/configuration.md is generated from the current catalogue', async () => {
    const doc = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toBe(renderConfigurationDoc());
  });
});

/** The object shape behind refinements and pipes. */
function objectShape(schema: z.ZodType): Record<string, unknown> {
  const def = (
    schema as unknown as { def: { shape?: Record<string, unknown>; in?: z.ZodType; schema?: z.ZodType; type: string } }
  ).def;
  if (def.shape) return def.shape;
  if (def.in) return objectShape(def.in);
  if (def.schema) return objectShape(def.schema);
  throw new Error(`cannot find the keys of a ${def.type} schema`);
}
