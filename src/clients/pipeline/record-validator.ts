import { createRequire } from 'node:module';
import { z } from 'zod';
import { validate } from '../transport/index.js';

/**
 * Record validation for the bulk path: every record of every page.
 *
 * zod is the definition: the types, the rules, the message naming the path that broke. But zod's
 * parse also copies each record and costs about 5 µs for a connector, more than JSON.parse of it;
 * listing 100,000 connectors spent half its time there. So once a schema has checked
 * `COMPILE_AFTER` records, it is compiled once, through its JSON Schema (`z.toJSONSchema`), by Ajv
 * into a function that checks a record in place about 20× faster.
 *
 * The compiled check may only ever be stricter than zod, never looser (test/clients/record-validator
 * tests this field by field): the JSON Schema drops regex flags, so `HTTPS://` fails the compiled
 * pattern that zod's case-insensitive one accepts. A record the compiled check refuses is therefore
 * parsed by zod, which either accepts it or throws the usual error naming the path.
 *
 * The threshold keeps a one-page CLI call from paying for a compile (~20–50 ms) it would not earn back.
 */
export const COMPILE_AFTER = 5_000;

type Check = (value: unknown) => boolean;

interface Tier {
  /** Records zod has checked for this schema while it was not compiled. */
  checked: number;
  /** The compiled check; `null` when the schema has no JSON Schema form (zod alone then). */
  compiled: Check | null | undefined;
}

const tiers = new WeakMap<z.ZodType, Tier>();

/**
 * Validates one record as `schema` defines it. `target` and `where` name the request and the path
 * for the error. An accepted record is returned as it came when the compiled check passed (the
 * schemas here have no defaults or transforms, so zod's output would be an equal copy).
 */
export function validateRecord<S extends z.ZodType>(
  schema: S,
  value: unknown,
  target: string,
  where: string,
): z.output<S> {
  let tier = tiers.get(schema);
  if (!tier) tiers.set(schema, (tier = { checked: 0, compiled: undefined }));
  if (tier.compiled === undefined && ++tier.checked > COMPILE_AFTER) tier.compiled = compile(schema);
  if (tier.compiled && tier.compiled(value)) return value as z.output<S>;
  return validate(schema, value, target, where);
}

/** The compiled check of a schema, or null when it has no JSON Schema form. Exported for the tests. */
export function compile(schema: z.ZodType): Check | null {
  let jsonSchema: object;
  try {
    // `input`: the shape on the wire, which is what the check sees.
    jsonSchema = z.toJSONSchema(schema, { target: 'draft-07', io: 'input', unrepresentable: 'throw' });
  } catch {
    return null;
  }
  const ajv = new (loadAjv())({
    // Formats are not checked: every format zod emits here also carries the pattern zod checks.
    validateFormats: false,
    allErrors: false,
    // zod's JSON Schema carries keywords Ajv's strict mode frowns on (format without ajv-formats).
    strict: false,
    // Patterns compile as RegExp with the u flag, as zod's do not; the schemas here mean the same either way.
    unicodeRegExp: true,
  });
  return ajv.compile(jsonSchema) as Check;
}

type AjvClass = typeof import('ajv').Ajv;
let ajvClass: AjvClass | undefined;

/** Ajv is CommonJS and loaded only when a schema is compiled, so it costs nothing before. */
function loadAjv(): AjvClass {
  return (ajvClass ??= (createRequire(import.meta.url)('ajv') as { Ajv: AjvClass }).Ajv);
}
