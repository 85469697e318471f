import type { z } from 'zod';
import { ConfigurationError } from '../../errors/index.js';
import type { RawConfiguration } from '../file/index.js';
import { refuseUncarriable } from './carried-values.js';
import { schemaKeys } from './schema-shape.js';
import { keyHint } from '../key-place.js';

/**
 * Runs one zod object schema over the raw configuration and turns the first problem into a
 * ConfigurationError that names the key (and never its value). Each auth method, source and
 * connector has its own schema; each picks its own keys out of the same flat configuration.
 */
export function parseKeys<T extends z.ZodType>(schema: T, raw: RawConfiguration, scope: string): z.output<T> {
  // Without zod's JIT: each schema parses one configuration a run, and compiling its fast path
  // (new Function, then V8) cost ~10 ms of a run's start to save microseconds.
  // Before zod: a URL parser would drop a line break silently, and a header would fail far from the key.
  refuseUncarriable(schemaKeys(schema), raw, scope);
  const result = schema.safeParse(raw, { jitless: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = String(issue.path[0] ?? '');
  const missing = raw[key] === undefined;
  // A wrong type is the one issue whose zod message says nothing useful here; the others (refine,
  // enum, regex, length) carry the schema's own words.
  const what = issue.code !== 'invalid_type' ? issue.message : missing ? 'is missing' : 'must be a string';
  throw new ConfigurationError(`invalid configuration for ${scope}: key '${key}' ${what}`, {
    code: missing ? 'missing_key' : 'malformed_key',
    key,
    hint: keyHint.set(key),
  });
}
