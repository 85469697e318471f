import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigurationText, checkFlatStringObject, readConfigurationFile } from '../../src/config/index.js';
import { ConfigurationError } from '../../src/errors/index.js';

const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
};

describe('reading configuration.json', () => {
  it('accepts a flat object of strings', () => {
    expect(parseConfigurationText('{"auth_method":"basic","username":"u"}')).toEqual({
      auth_method: 'basic',
      username: 'u',
    });
  });

  it('reports invalid JSON with line and column, without quoting the input', () => {
    const text = '{\n  "password": "hunter2-secret",\n  "user" "x"\n}';
    const error = fails(() => parseConfigurationText(text, 'configuration.json'));
    expect(error.message).toContain('line 3, column 10');
    expect(error.message).not.toContain('hunter2');
    expect(error.exitCode).toBe(2);
  });

  it('finds a trailing comma and an unterminated string', () => {
    expect(fails(() => parseConfigurationText('{"a":"b",}')).message).toMatch(/trailing comma.*line 1, column 10/);
    expect(fails(() => parseConfigurationText('{"a":"b')).message).toMatch(/unterminated string/);
  });

  it('names a non-string key and never its value', () => {
    const error = fails(() => checkFlatStringObject({ auth_method: 'basic', port: 5432 }));
    expect(error.key).toBe('port');
    expect(error.message).toContain("key 'port' is a number; all values in configuration must be strings");
    expect(error.message).not.toContain('5432');
  });

  it('refuses more than 100 keys', () => {
    const big = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']));
    expect(fails(() => checkFlatStringObject(big)).message).toContain('101 keys; at most 100');
  });

  it('refuses a top-level array', () => {
    expect(fails(() => parseConfigurationText('["a"]')).code).toBe('configuration_not_object');
  });

  it('reads a file that starts with a UTF-8 byte order mark (as Windows editors save it)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'configuration-bom-'));
    try {
      const path = join(dir, 'configuration.json');
      await writeFile(
        path,
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"auth_method":"bearer","token":"abcdefgh"}')]),
      );
      expect(await readConfigurationFile(path)).toEqual({ auth_method: 'bearer', token: 'abcdefgh' });
      // Positions after the mark count as the editor shows them: the mark is not a column.
      await writeFile(path, '\uFEFF{"a":"b",}');
      const error = await readConfigurationFile(path).then(
        () => undefined,
        (e: unknown) => e as ConfigurationError,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error!.message).toMatch(/trailing comma.*line 1, column 10/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
