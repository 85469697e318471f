import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { keys, parseKeys, readConfiguration } from '../../src/config/index.js';
import { ConfigurationError } from '../../src/errors/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

/**
 * A URL with a user name or password holds a credential whatever its key: its parts are secrets
 * from the moment the configuration is read, and every URL key refuses it (exit 2, naming the key).
 */

describe('userinfo in a URL', () => {
  it('is registered as a secret when the configuration is read, as written and decoded, under its key', () => {
    const registry = new SecretRegistry();
    const password = 'p@ss w/rd+1';
    const raw = {
      base_url: `https://bob:${encodeURIComponent(password)}@api.example/v1`,
      webhook: 'https://TOKEN-abcdef123@hooks.example/x',
    };
    readConfiguration(raw, { registry });
    expect(registry.redact(`GET ${raw.base_url}`)).toBe('GET https://<redacted:base_url>@api.example/v1');
    expect(registry.redact(`password ${password}`)).toBe('password <redacted:base_url>');
    expect(registry.redact(raw.webhook)).toBe('https://<redacted:webhook>@hooks.example/x');
    // "bob" beside a password is a name: not reported as a secret too short to redact.
    expect([...registry.tooShort]).toEqual([]);
  });

  it('is refused by every URL key, naming it', () => {
    const schema = z.object({ base_url: keys.url(), token_url: keys.optionalUrl() });
    expect(() =>
      parseKeys(
        schema,
        { base_url: 'https://api.example', token_url: 'https://u:p4ssword@id.example/token' },
        'the test',
      ),
    ).toThrow(ConfigurationError);
    try {
      parseKeys(schema, { base_url: 'https://user:secret-pass@api.example' }, 'the test');
    } catch (error) {
      expect((error as ConfigurationError).key).toBe('base_url');
      expect((error as ConfigurationError).message).toBe(
        "invalid configuration for the test: key 'base_url' must not hold a user name or password (user:password@host); give the credential in the auth method's keys",
      );
      return;
    }
    throw new Error('not refused');
  });
});
