import type { CustomTypesConfig } from 'pg';

/**
 * How column values come out of PostgreSQL, and so which warehouse type an undeclared column gets:
 * the types the Python connector SDK would give the same rows (psycopg2's values through the SDK's
 * type inference, sdk-facts in docs/sources/postgres.md):
 *
 * - `bigint` (int8; count(*), bigserial): pg hands it out as text, so every id would have landed as
 *   VARCHAR. Here a number when it fits a JavaScript number exactly, else a BigInt: both are LONG
 *   (BIGINT) in the warehouse, as a Python int is.
 * - `numeric`: kept as pg's exact text. Undeclared, it lands as STRING (VARCHAR), which is what the
 *   SDK infers from a Python Decimal; a column declared DECIMAL(p, s) in `schema()` receives the text
 *   and stores it exactly, as the SDK's DECIMAL does. A JavaScript number would round it.
 * - everything else as pg parses it (int2/int4/float → number, bool, timestamps → Date, json →
 *   object, bytea → Buffer).
 */
const INT8 = 20;

export function columnValueTypes(defaults: CustomTypesConfig): CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === INT8 && format !== 'binary') return parseInt8;
      return defaults.getTypeParser(oid, format);
    }) as CustomTypesConfig['getTypeParser'],
  };
}

function parseInt8(text: string): number | bigint {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}
