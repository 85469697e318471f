import {
  checkFlatStringObject,
  parseConfigurationText,
  readTextFile,
  withoutByteOrderMark,
  type RawConfiguration,
} from '../../../config/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { JsonObject } from '../messages/index.js';

/**
 * `--config FILE`: the configuration Airbyte hands a connector, read into the flat configuration the
 * rest of connector-auth reads (the same file `debug` reads is accepted as it is).
 *
 * The rules (docs/hosts/airbyte.md):
 * - a string is a string; a number or a boolean becomes its JSON text (5432 → "5432", true →
 *   "true"), as it would be written in configuration.json; null means the key is not given;
 * - an object is a group of keys, as Airbyte's form nests the `auth_method` choice (the spec's
 *   oneOf): its members become top-level keys, and its own `auth_method` member names the method;
 *   one level only; a key given both in a group and at the top with different values is refused;
 * - an array is refused (no key takes a list).
 *
 * The configuration is kept as given, too: a rotated value is written back at the place it came
 * from (`withValue`), so the CONTROL message hands Airbyte a configuration of the shape it stored.
 */
export interface AirbyteConfiguration {
  readonly flat: RawConfiguration;
  /** The configuration as given, with `key` now `value` (rotations accumulate). */
  withValue(key: string, value: string): JsonObject;
}

export function readAirbyteConfiguration(path: string): AirbyteConfiguration {
  let text = readTextFile(path, '--config file', {
    code: 'configuration_unreadable',
    hint: 'pass --config FILE: the connector configuration as JSON',
  });
  text = withoutByteOrderMark(text);
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    // The project's reader locates the error without quoting the text (it may hold a secret).
    parseConfigurationText(text, path);
  }
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new ConfigurationError(`${path} must be a JSON object`, { code: 'configuration_not_object' });
  }
  return flatten(given as JsonObject, path);
}

export function flatten(given: JsonObject, origin = 'the configuration'): AirbyteConfiguration {
  const flat: Record<string, string> = {};
  /** key → the group it sits in (undefined: the top level). */
  const groups = new Map<string, string | undefined>();
  const put = (key: string, value: unknown, group: string | undefined): void => {
    const text = scalarText(key, value, origin);
    if (text === undefined) return;
    if (key in flat && flat[key] !== text) {
      throw new ConfigurationError(
        `invalid configuration: key '${key}' is given twice with different values (${group ? `in '${group}' and elsewhere` : 'at the top level and in a group'})`,
        {
          code: 'configuration_key_twice',
          key,
          hint: `give '${key}' once`,
        },
      );
    }
    flat[key] = text;
    if (!groups.has(key) || group !== undefined) groups.set(key, group);
  };
  for (const [key, value] of Object.entries(given)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [member, inner] of Object.entries(value as JsonObject)) {
        if (inner !== null && typeof inner === 'object') {
          throw new ConfigurationError(`invalid configuration: key '${key}.${member}' is nested more than one level`, {
            code: 'configuration_too_deep',
            key: member,
            hint: `give '${member}' as a string in '${key}' or at the top level`,
          });
        }
        put(member, inner, key);
      }
      continue;
    }
    put(key, value, undefined);
  }
  const raw = checkFlatStringObject(flat, origin);
  const current = structuredClone(given);
  return {
    flat: raw,
    withValue(key, value) {
      const group = groups.get(key);
      const holder = group === undefined ? current : (current[group] as JsonObject);
      holder[key] = value;
      return structuredClone(current);
    },
  };
}

function scalarText(key: string, value: unknown, origin: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    default:
      if (value === null) return undefined;
      throw new ConfigurationError(
        `invalid configuration: key '${key}' is an array; values in ${origin} are strings (numbers and booleans are taken as their text)`,
        {
          code: 'configuration_value_not_string',
          key,
          hint: `write the value of '${key}' as a string`,
        },
      );
  }
}
