import { withoutByteOrderMark } from './byte-order-mark.js';
import { readTextFile } from './read-text-file.js';
import { ConfigurationError } from '../../errors/index.js';
import { jsonErrorPosition } from './json-error-position.js';

/** The Python SDK's limit, kept so a configuration that runs here also runs there. */
export const MAX_CONFIGURATION_KEYS = 100;

export type RawConfiguration = Readonly<Record<string, string>>;

/** Reads `configuration.json`: a flat JSON object of at most 100 keys whose values are all strings. */
export async function readConfigurationFile(path: string): Promise<RawConfiguration> {
  const text = readTextFile(path, 'configuration file', {
    code: 'configuration_unreadable',
    hint: 'pass --configuration FILE or create configuration.json in the project',
  });
  return parseConfigurationText(text, path);
}

export function parseConfigurationText(text: string, origin = 'configuration'): RawConfiguration {
  text = withoutByteOrderMark(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const { line, column, problem } = jsonErrorPosition(text);
    throw new ConfigurationError(`${origin} is not valid JSON: ${problem} at line ${line}, column ${column}`, {
      code: 'configuration_not_json',
      hint: 'fix the JSON syntax at that position',
    });
  }
  return checkFlatStringObject(parsed, origin);
}

/** Accepts an object already in memory (library use) under the same rules as the file. */
export function checkFlatStringObject(value: unknown, origin = 'configuration'): RawConfiguration {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigurationError(`${origin} must be a JSON object of string values`, {
      code: 'configuration_not_object',
    });
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CONFIGURATION_KEYS) {
    throw new ConfigurationError(
      `${origin} has ${entries.length} keys; at most ${MAX_CONFIGURATION_KEYS} are allowed`,
      {
        code: 'configuration_too_many_keys',
      },
    );
  }
  for (const [key, v] of entries) {
    if (typeof v !== 'string') {
      const kind =
        v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
      throw new ConfigurationError(
        `invalid configuration: key '${key}' is ${kind}; all values in ${origin} must be strings`,
        { code: 'configuration_value_not_string', key, hint: `write the value of '${key}' in double quotes` },
      );
    }
  }
  return Object.freeze({ ...(value as Record<string, string>) });
}
