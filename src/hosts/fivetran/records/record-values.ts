import { rowJsonReplacer, type ColumnType } from '../../../connector/index.js';
import { ConnectorError } from '../../../errors/index.js';
import type { WireWriter } from './wire-writer.js';

/**
 * A row's values as the partner SDK's `ValueType` (one field of its `inner` oneof, numbered as in
 * common.proto). A column the connector declared gets that type, converted where the JavaScript
 * value says the same thing another way (a pg `bigint` arrives as a string of digits, a boolean as
 * "true"); anything else is refused with the table and column, never the value. An undeclared
 * column is typed from the value, as the local warehouse infers it: boolean, integer → LONG (beyond
 * int64 a bigint becomes a DECIMAL string), other numbers → DOUBLE, Date → UTC_DATETIME, bytes →
 * BINARY, object or array → JSON (BigInt as its decimal text), string → STRING, null → null.
 */

const F = {
  null: 1,
  bool: 2,
  short: 3,
  int: 4,
  long: 5,
  float: 6,
  double: 7,
  naiveDate: 8,
  naiveDatetime: 9,
  utcDatetime: 10,
  decimal: 11,
  binary: 12,
  string: 13,
  json: 14,
  xml: 15,
} as const;

const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;
const FIXED32 = 5;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_POW_63 = 2 ** 63;
const DAY_MS = 86_400_000;
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^[+-]?\d+$/;
const NAIVE_TEXT = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/;

/** Writes the ValueType content of `value` (not undefined) for a column, declared or not. */
export function writeValue(w: WireWriter, value: unknown, declared: ColumnType | undefined, where: () => string): void {
  if (value === null || value === undefined) return writeVarint(w, F.null, 1);
  if (declared === undefined) return writeInferred(w, value, where);
  if (typeof declared === 'object') return writeDecimal(w, value, where, 'DECIMAL');
  switch (declared) {
    case 'BOOLEAN':
      return writeVarint(w, F.bool, toBoolean(value, where) ? 1 : 0);
    case 'SHORT':
      return writeVarint(w, F.short, toInteger(value, -32768, 32767, where, declared));
    case 'INT':
      return writeVarint(w, F.int, toInteger(value, -(2 ** 31), 2 ** 31 - 1, where, declared));
    case 'LONG':
      return writeVarint(w, F.long, toLong(value, where));
    case 'FLOAT':
      w.tag(F.float, FIXED32);
      return w.float(toNumber(value, where, declared));
    case 'DOUBLE':
      w.tag(F.double, FIXED64);
      return w.double(toNumber(value, where, declared));
    case 'NAIVE_DATE':
      return writeTimestamp(w, F.naiveDate, Math.floor(toNaiveMs(value, where, declared) / DAY_MS) * DAY_MS);
    case 'NAIVE_DATETIME':
      return writeTimestamp(w, F.naiveDatetime, toNaiveMs(value, where, declared));
    case 'UTC_DATETIME':
      return writeTimestamp(w, F.utcDatetime, toInstantMs(value, where));
    case 'BINARY':
      if (!(value instanceof Uint8Array)) throw refuse(where, value, declared);
      w.tag(F.binary, DELIMITED);
      return w.bytes(value);
    case 'XML':
      if (typeof value !== 'string') throw refuse(where, value, declared);
      return writeText(w, F.xml, value);
    case 'STRING':
      return writeText(w, F.string, toText(value, where));
    case 'JSON':
      return writeText(w, F.json, toJson(value, where));
    default:
      throw new ConnectorError(`${where()}: unknown column type`, {
        code: 'column_type_unknown',
        hint: 'declare columns with the SDK type names (STRING, LONG, UTC_DATETIME, …)',
      });
  }
}

function writeInferred(w: WireWriter, value: unknown, where: () => string): void {
  switch (typeof value) {
    case 'string':
      return writeText(w, F.string, value);
    case 'boolean':
      return writeVarint(w, F.bool, value ? 1 : 0);
    case 'number':
      if (Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63)
        return writeVarint(w, F.long, Number.isSafeInteger(value) ? value : BigInt(value));
      w.tag(F.double, FIXED64);
      return w.double(value);
    case 'bigint':
      if (value >= INT64_MIN && value <= INT64_MAX) return writeVarint(w, F.long, value);
      return writeText(w, F.decimal, value.toString());
    case 'object':
      if (value instanceof Date) return writeTimestamp(w, F.utcDatetime, toInstantMs(value, where));
      if (value instanceof Uint8Array) {
        w.tag(F.binary, DELIMITED);
        return w.bytes(value);
      }
      return writeText(w, F.json, toJson(value, where));
    default:
      throw refuse(where, value, 'any column type');
  }
}

function writeVarint(w: WireWriter, field: number, value: number | bigint): void {
  w.tag(field, VARINT);
  w.varint64(value);
}

function writeText(w: WireWriter, field: number, value: string): void {
  w.tag(field, DELIMITED);
  w.string(value);
}

/** google.protobuf.Timestamp: seconds (int64, field 1) and nanos (int32 0..999,999,999, field 2). */
function writeTimestamp(w: WireWriter, field: number, ms: number): void {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  w.tag(field, DELIMITED);
  const start = w.begin();
  if (seconds !== 0) writeVarint(w, 1, seconds);
  if (nanos !== 0) writeVarint(w, 2, nanos);
  w.end(start);
}

function writeDecimal(w: WireWriter, value: unknown, where: () => string, type: string): void {
  let text: string;
  if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else if (typeof value === 'bigint') text = value.toString();
  else throw refuse(where, value, type);
  writeText(w, F.decimal, text);
}

function toBoolean(value: unknown, where: () => string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'true' || word === 'false') return word === 'true';
  }
  throw refuse(where, value, 'BOOLEAN');
}

function toInteger(value: unknown, min: number, max: number, where: () => string, type: string): number {
  const n =
    typeof value === 'bigint'
      ? Number(value)
      : typeof value === 'string' && INTEGER_TEXT.test(value.trim())
        ? Number(value.trim())
        : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return n;
  throw refuse(where, value, type);
}

function toLong(value: unknown, where: () => string): number | bigint {
  if (typeof value === 'number' && Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63)
    return Number.isSafeInteger(value) ? value : BigInt(value);
  const big =
    typeof value === 'bigint'
      ? value
      : typeof value === 'string' && INTEGER_TEXT.test(value.trim())
        ? BigInt(value.trim())
        : undefined;
  if (big !== undefined && big >= INT64_MIN && big <= INT64_MAX) return big;
  throw refuse(where, value, 'LONG');
}

function toNumber(value: unknown, where: () => string, type: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) return Number(value.trim());
  throw refuse(where, value, type);
}

/** A wall-clock time with no zone, as milliseconds of the same wall time in UTC. */
function toNaiveMs(value: unknown, where: () => string, type: string): number {
  if (value instanceof Date) return validMs(value.getTime(), where, type);
  if (typeof value === 'string' && NAIVE_TEXT.test(value.trim())) {
    const text = value.trim().replace(' ', 'T');
    return validMs(Date.parse(text.length === 10 ? `${text}T00:00:00Z` : `${text}Z`), where, type);
  }
  throw refuse(where, value, type);
}

/** An instant: a Date, or ISO 8601 text (a time without a zone is read as UTC). */
function toInstantMs(value: unknown, where: () => string): number {
  if (value instanceof Date) return validMs(value.getTime(), where, 'UTC_DATETIME');
  if (typeof value === 'string') {
    const text = value.trim();
    return validMs(
      NAIVE_TEXT.test(text) ? toNaiveMs(text, where, 'UTC_DATETIME') : Date.parse(text),
      where,
      'UTC_DATETIME',
    );
  }
  throw refuse(where, value, 'UTC_DATETIME');
}

function validMs(ms: number, where: () => string, type: string): number {
  if (Number.isNaN(ms))
    throw new ConnectorError(`${where()}: an invalid date cannot be sent as ${type}`, {
      code: 'row_value_type',
      hint: 'send a valid Date or an ISO 8601 text',
    });
  return ms;
}

function toText(value: unknown, where: () => string): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'object':
      if (value instanceof Date) return new Date(validMs(value.getTime(), where, 'STRING')).toISOString();
      if (value instanceof Uint8Array || ArrayBuffer.isView(value)) throw refuse(where, value, 'STRING');
      return toJson(value, where);
    default:
      throw refuse(where, value, 'STRING');
  }
}

/** JSON text: an object or array serialized as the warehouse writes it, or a string that already is JSON. */
function toJson(value: unknown, where: () => string): string {
  if (typeof value === 'string') {
    try {
      JSON.parse(value);
      return value;
    } catch {
      throw refuse(where, value, 'JSON');
    }
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) throw refuse(where, value, 'JSON');
  let text: string | undefined;
  try {
    text = JSON.stringify(value, rowJsonReplacer);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw refuse(where, value, 'JSON');
  return text;
}

/** The value's kind, never the value: it may be anything the source holds. */
function refuse(where: () => string, value: unknown, type: string): ConnectorError {
  const kind =
    value === null
      ? 'null'
      : typeof value !== 'object'
        ? typeof value
        : Array.isArray(value)
          ? 'array'
          : (value.constructor?.name ?? 'object');
  return new ConnectorError(`${where()}: a ${kind} value cannot be sent as ${type}`, {
    code: 'row_value_type',
    hint: 'give the column a value of its declared type, or change the type in schema()',
  });
}
