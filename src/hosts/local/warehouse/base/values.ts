/**
 * Row values as the warehouse keeps them: copied when buffered (so a caller
 * may reuse its objects), the column type they suggest and widen to when the
 * column is not declared, and the canonical JSON behind `_fivetran_id`.
 */
import { createHash } from 'node:crypto';
import { rowJsonReplacer } from '../../../../connector/index.js';
import { FIVETRAN_ID } from './identifiers.js';
import { columnLabel, tableLabel, warehouseError } from './warehouse-errors.js';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const INT128_MIN = -(2n ** 127n);
const INT128_MAX = 2n ** 127n - 1n;
export const TWO_POW_63 = 2 ** 63;

/**
 * The integer types narrower than BIGINT, with the numbers each holds: a column of them whose
 * values all lie inside is stored as it is, without a checked cast (Fivetran's SHORT and INT).
 */
export const NARROW_INTEGER_RANGES: ReadonlyMap<string, readonly [min: number, max: number]> = new Map([
  ['SMALLINT', [-(2 ** 15), 2 ** 15 - 1]],
  ['INTEGER', [-(2 ** 31), 2 ** 31 - 1]],
]);

/** An object or array value, serialized when it was written. */
export class JsonText {
  constructor(readonly text: string) {}
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  if (Array.isArray(value)) return 'array';
  return value.constructor?.name ?? 'object';
}

/**
 * The stored form of one value. Buffered rows must not change when the caller
 * reuses its objects, so bytes are copied and objects serialized here (Dates
 * are kept as they are).
 */
export function copyObjectValue(value: object, table: string, column: string): unknown {
  if (value instanceof Date) return value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw warehouseError(
      `${columnLabel(table, column)}: binary values must be Uint8Array or Buffer, not ${describeType(value)}`,
    );
  }
  let text: string | undefined;
  try {
    // The replacer the secret guard checks with (a BigInt as its decimal text).
    text = JSON.stringify(value, rowJsonReplacer);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    throw warehouseError(
      `${columnLabel(table, column)}: the ${describeType(value)} value cannot be serialized to JSON`,
    );
  }
  return new JsonText(text);
}

/** The column type a value suggests when its column is not declared. */
export function naturalType(value: unknown): string {
  switch (typeof value) {
    case 'boolean':
      return 'BOOLEAN';
    case 'number':
      return Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63 ? 'BIGINT' : 'DOUBLE';
    case 'bigint':
      if (value >= INT64_MIN && value <= INT64_MAX) return 'BIGINT';
      return value >= INT128_MIN && value <= INT128_MAX ? 'HUGEINT' : 'VARCHAR';
    case 'object':
      if (value instanceof Date) return 'TIMESTAMPTZ';
      if (value instanceof Uint8Array) return 'BLOB';
      if (value instanceof JsonText) return 'JSON';
      return 'VARCHAR';
    default:
      return 'VARCHAR';
  }
}

/** The type of an inferred column once `value` is written to it. */
export function widen(type: string, value: unknown): string {
  switch (type) {
    case 'VARCHAR':
      return type;
    case 'BIGINT':
      if (typeof value === 'number') {
        return Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63 ? type : 'DOUBLE';
      }
      if (typeof value === 'bigint') {
        if (value >= INT64_MIN && value <= INT64_MAX) return type;
        return value >= INT128_MIN && value <= INT128_MAX ? 'HUGEINT' : 'VARCHAR';
      }
      return 'VARCHAR';
    case 'HUGEINT':
      if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 127 ? type : 'DOUBLE';
      if (typeof value === 'bigint') return value >= INT128_MIN && value <= INT128_MAX ? type : 'VARCHAR';
      return 'VARCHAR';
    case 'DOUBLE':
      return typeof value === 'number' || typeof value === 'bigint' ? type : 'VARCHAR';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? type : 'VARCHAR';
    case 'TIMESTAMPTZ':
      return value instanceof Date ? type : 'VARCHAR';
    case 'BLOB':
      return value instanceof Uint8Array ? type : 'VARCHAR';
    case 'JSON':
      return value instanceof JsonText ? type : 'VARCHAR';
    default:
      // A type no inference produces (a column found in the file): values are
      // cast to it, and a value that does not cast is reported.
      return type;
  }
}

export function isValidDate(value: Date): boolean {
  return !Number.isNaN(value.getTime());
}

export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Canonical JSON: sorted keys, no undefined members; used for `_fivetran_id`. */
function canonicalJson(value: unknown, depth: number): string {
  if (depth > 100) throw new Error('too deep');
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value instanceof Date) return JSON.stringify(isValidDate(value) ? value.toISOString() : 'Invalid Date');
      if (value instanceof Uint8Array) return JSON.stringify(`base64:${base64(value)}`);
      if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return canonicalJson(toJSON.call(value), depth + 1);
      const record = value as Record<string, unknown>;
      const members = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], depth + 1)}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new Error('unsupported');
  }
}

/**
 * `_fivetran_id`: sha1 hex of the canonical JSON of a row's non-null data,
 * given as [canonical column name, value] members (sorted here).
 */
export function fivetranId(table: string, members: [string, unknown][]): string {
  members.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let json: string;
  try {
    json = `{${members.map(([name, value]) => `${JSON.stringify(name)}:${canonicalJson(value, 0)}`).join(',')}}`;
  } catch {
    throw warehouseError(`${tableLabel(table)}: the row cannot be serialized to compute ${FIVETRAN_ID}`);
  }
  return createHash('sha1').update(json).digest('hex');
}
