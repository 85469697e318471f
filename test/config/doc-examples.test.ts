import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadAuthMethod } from '../../src/auth/index.js';
import { isPlaceholder, parseKeys, readConfiguration } from '../../src/config/index.js';
import { resolveConfiguration } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

/**
 * The configuration.json examples of the auth pages are meant to be copied: each one must pass the
 * same checks a run makes before its first request (keys, their forms, the method's own rules).
 */

const dir = new URL('../../docs/auth/', import.meta.url);
// custom.md configures a method of the connector's own: test/recipes/custom-auth-method.test.ts runs it.
const pages = (await readdir(dir)).filter((f) => f.endsWith('.md') && f !== 'custom.md');

async function examples(page: string): Promise<Record<string, string>[]> {
  const text = await readFile(new URL(page, dir), 'utf8');
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => JSON.parse(m[1]!) as Record<string, string>)
    .filter((c) => typeof c.auth_method === 'string');
}

/**
 * An example with an elided value (a key's PEM body shown as `MIIEv…`) or a placeholder to fill in
 * (`<the app registration's client id>`, which a run refuses) shows a shape, not a value to copy.
 */
const complete = (c: Record<string, string>) => !Object.values(c).some((v) => v.includes('…') || isPlaceholder(v));

/** The source a page's examples are for, where it is not the rest source (a connector names it in code, not in configuration.json). */
const SOURCE_OF_PAGE: Record<string, 's3' | 'postgres'> = { 'aws-roles.md': 's3', 'kerberos.md': 'postgres' };

describe('configuration examples in docs/auth', () => {
  it.each(pages)('%s', async (page) => {
    const source = SOURCE_OF_PAGE[page];
    for (const configuration of (await examples(page)).filter(complete)) {
      // An example for `connector-auth authorize` shows the configuration before it: what authorize reads must accept it.
      const method = await loadAuthMethod(configuration.auth_method!);
      if (method.authorize && configuration.authorization_url && !configuration.refresh_token) {
        expect(parseKeys(method.authorize.keys, configuration, 'authorize')).toBeDefined();
        continue;
      }
      await expect(
        resolveConfiguration(
          readConfiguration(configuration, { registry: new SecretRegistry() }),
          source ? { source } : {},
        ),
      ).resolves.toBeDefined();
    }
  });

  it('the cloud identity pages have complete examples, so the check above checks them, and it can fail', async () => {
    for (const page of ['gcp-metadata.md', 'azure-managed-identity.md']) {
      const [example] = (await examples(page)).filter(complete);
      expect(example).toBeDefined();
      await expect(
        resolveConfiguration(
          readConfiguration({ ...example!, metadata_endpoint: 'http://10.1.1.1' }, { registry: new SecretRegistry() }),
        ),
      ).rejects.toThrow(/metadata_endpoint/);
    }
  });
});
