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
});
