import type { z } from 'zod';

/** The keys an object schema of string keys reads (none for a schema that is not an object). */
export function schemaKeys(schema: z.ZodType): string[] {
  return Object.keys(shapeOf(schema) ?? {});
}

/**
 * What an object schema of string keys makes of each absent key: the default it really applies (a
 * port's 5432, a boolean's false, a connector's `.default('…')`), read from the schema itself rather
 * than from a table that could drift from it. Only a plain value counts; a key that is required, or
 * optional without a default, has none. A schema that is not an object has no defaults.
 */
export function schemaDefaults(schema: z.ZodType): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const [key, member] of Object.entries(shapeOf(schema) ?? {})) {
    const value = defaultOf(member);
    if (value !== undefined) defaults.set(key, value);
  }
  return defaults;
}

/** The members of an object schema, looking through a refinement or pipe around it. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current: unknown = schema;
  for (let depth = 0; depth < 4 && current; depth++) {
    const candidate = current as {
      shape?: Record<string, z.ZodType>;
      _zod?: { def?: { in?: unknown; schema?: unknown } };
    };
    if (candidate.shape && typeof candidate.shape === 'object') return candidate.shape;
    current = candidate._zod?.def?.in ?? candidate._zod?.def?.schema;
  }
  return undefined;
}

function defaultOf(member: z.ZodType): string | undefined {
  const parsed = member.safeParse(undefined);
  if (!parsed.success) return undefined;
  const value = parsed.data;
  const text =
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  return text === '' ? undefined : text;
}
