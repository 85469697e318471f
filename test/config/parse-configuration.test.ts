import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../../src/config/index.js';
import { rejection } from '../helpers/rejection.js';

/** The first problem with a schema's keys becomes one ConfigurationError naming the key, never its value. */
describe('parseKeys', () => {
  const schema = z.object({
    region: z.string().regex(/^[a-z]{2}-[a-z]+-\d$/, 'must be a region such as eu-west-1'),
    mode: z.enum(['fast', 'safe']).optional(),
    name: z.string().min(3, 'must be at least 3 characters').optional(),
  });
  const failure = (raw: Record<string, string>) =>
    rejection(Promise.resolve().then(() => parseKeys(schema, raw, 'the test')));

  it("says the schema's own words for a pattern, an enum or a length, and 'is missing' for an absent key", async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ region: 'Europe/Paris' }, "key 'region' must be a region such as eu-west-1", 'malformed_key'],
      [
        { region: 'eu-west-1', mode: 'turbo' },
        'key \'mode\' Invalid option: expected one of "fast"|"safe"',
        'malformed_key',
      ],
      [{ region: 'eu-west-1', name: 'ab' }, "key 'name' must be at least 3 characters", 'malformed_key'],
      [{}, "key 'region' is missing", 'missing_key'],
    ];
    for (const [raw, said, code] of cases) {
      const error = await failure(raw);
      expect(error.exitCode).toBe(2);
      expect(error.code).toBe(code);
      expect(error.message).toBe(`invalid configuration for the test: ${said}`);
      for (const value of Object.values(raw)) expect(error.message).not.toContain(value);
    }
  });

  it("a value that is not a string: 'must be a string'", async () => {
    const error = await rejection(Promise.resolve().then(() => parseKeys(schema, { region: 7 } as never, 'the test')));
    expect(error.message).toBe("invalid configuration for the test: key 'region' must be a string");
  });

  it('a value its key carries into a header, a URL or a connection string: what that cannot carry is refused, naming the key', async () => {
    const carried = z.object({
      token: z.string().optional(),
      base_url: z.string().optional(),
      host: z.string().optional(),
      password: z.string().optional(),
      tls_client_private_key: z.string().optional(),
    });
    const cases: [Record<string, string>, string][] = [
      [{ token: 'zq1\r\nzq2' }, "key 'token' holds a line break, which an HTTP header cannot carry"],
      [{ token: 'zq1\u0007zq2' }, "key 'token' holds a control character, which an HTTP header cannot carry"],
      [{ token: 'zq1€zq2' }, "key 'token' holds a character outside Latin-1, which an HTTP header cannot carry"],
      [{ host: 'zq1\0zq2' }, "key 'host' holds a NUL character, which a URL, a connection string"],
      [{ base_url: 'https://zq1.\nzq2.example' }, "key 'base_url' holds a line break, which a URL"],
    ];
    for (const [raw, said] of cases) {
      const error = await rejection(Promise.resolve().then(() => parseKeys(carried, raw, 'the test')));
      expect(error.exitCode).toBe(2);
      expect(error.code).toBe('uncarriable_value');
      expect(error.key).toBe(Object.keys(raw)[0]);
      expect(error.message).toContain(`invalid configuration for the test: ${said}`);
      expect(error.hint).toContain(`check '${error.key}'`);
      // The value is never shown, not even a part of it.
      expect(`${error.message} ${error.hint}`).not.toContain('zq');
    }
    // Latin-1 in a header, whitespace at the ends, a password (encoded wherever it goes), a PEM's lines: all carried.
    const fine = {
      token: ' tök\n',
      password: 'pä\nss\0wörd€',
      base_url: 'https://api.example.com\n',
      tls_client_private_key: 'a\nb',
    };
    expect(parseKeys(carried, fine, 'the test')).toEqual(fine);
  });
});
