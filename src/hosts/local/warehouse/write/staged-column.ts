/**
 * One column of a run converted for the staging table: the column's values
 * are looked at once to pick the fastest faithful staging type (numbers as
 * DOUBLE, dates as epoch milliseconds, ...), with the SQL that turns the
 * staging column into the target type and whether that cast can fail.
 */
import {
  categoryOf,
  type Api,
  type DuckDBType,
  INT64_MAX,
  INT64_MIN,
  JsonText,
  TWO_POW_63,
  base64,
  describeType,
  isJsonText,
  isValidDate,
  columnLabel,
  warehouseError,
} from '../base/index.js';

/** One staged column: its values converted for a staging column type. */
export interface StagedColumn {
  name: string;
  target: string;
  stageType: 'DOUBLE' | 'VARCHAR' | 'BOOLEAN' | 'BIGINT' | 'BLOB' | 'INTEGER';
  values: unknown[];
  /** SQL turning the staging column `ref` into the target type */
  expr: (ref: string) => string;
  /** the cast can fail: check it with TRY_CAST before writing */
  check: boolean;
}

/** DuckDB's type of a staging column, for the appender's chunks. */
export function stageVectorType(api: Api, stageType: StagedColumn['stageType']): DuckDBType {
  switch (stageType) {
    case 'DOUBLE':
      return api.DOUBLE;
    case 'VARCHAR':
      return api.VARCHAR;
    case 'BOOLEAN':
      return api.BOOLEAN;
    case 'BIGINT':
      return api.BIGINT;
    case 'BLOB':
      return api.BLOB;
    case 'INTEGER':
      return api.INTEGER;
  }
}

function castExpr(target: string): (ref: string) => string {
  return (ref) => `CAST(${ref} AS ${target})`;
}

const identity = (ref: string): string => ref;

/**
 * Converts one column's values for staging. `source` is the run's column
 * (shorter than the run when its last operations lack it); `lenient` never
 * throws and casts with TRY_CAST (keys of deletes: a key that cannot exist
 * matches nothing).
 */
export function stageColumn(
  api: Api,
  table: string,
  name: string,
  target: string,
  source: unknown[],
  lenient: boolean,
): StagedColumn {
  const n = source.length;
  const fail = (message: string): never => {
    throw warehouseError(`${columnLabel(table, name)}: ${message}`);
  };
  const convert = (to: (value: unknown) => unknown): unknown[] => {
    const values: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const value = source[i];
      values[i] = value === undefined || value === null ? null : to(value);
    }
    return values;
  };
  const staged = (
    stageType: StagedColumn['stageType'],
    values: unknown[],
    expr: (ref: string) => string,
    check: boolean,
  ): StagedColumn => ({ name, target, stageType, values, expr, check });
  if (lenient) {
    const values = convert((value) => toText(api, value, () => null));
    return staged('VARCHAR', values, (ref) => `TRY_CAST(${ref} AS ${target})`, false);
  }
  // What the column holds: one pass to pick the fastest faithful staging.
  let numbers = 0;
  let integers = true;
  let bigints = 0;
  let int64 = true;
  let booleans = 0;
  let strings = 0;
  let dates = 0;
  let nonNull = 0;
  for (let i = 0; i < n; i++) {
    const value = source[i];
    if (value === undefined || value === null) continue;
    nonNull++;
    switch (typeof value) {
      case 'number':
        numbers++;
        if (integers && !(Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63)) integers = false;
        break;
      case 'bigint':
        bigints++;
        if (value < INT64_MIN || value > INT64_MAX) int64 = false;
        break;
      case 'boolean':
        booleans++;
        break;
      case 'string':
        strings++;
        break;
      case 'object':
        if (value instanceof Date) {
          if (!isValidDate(value)) fail('an invalid Date cannot be stored');
          dates++;
        }
        break;
    }
  }
  const asText = (value: unknown): string => toText(api, value, fail) as string;

  switch (categoryOf(target)) {
    case 'bool':
      if (booleans === nonNull) return staged('BOOLEAN', source, identity, false);
      break;
    case 'int':
      if (numbers > 0 && !integers) {
        // DuckDB would round a fraction into an integer column.
        for (const value of source) {
          if (typeof value === 'number' && !Number.isInteger(value))
            fail(`a non-integer number cannot be stored as ${target}`);
        }
        fail(`a number out of range cannot be stored as ${target}`);
      }
      if (numbers === nonNull) {
        // Exact: integers below 2^63 in magnitude convert from DOUBLE as they are.
        return staged('DOUBLE', source, castExpr(target), target !== 'BIGINT' && target !== 'HUGEINT');
      }
      if (numbers + bigints === nonNull && int64) {
        const values = convert((value) => (typeof value === 'bigint' ? value : BigInt(value as number)));
        return staged(
          'BIGINT',
          values,
          target === 'BIGINT' ? identity : castExpr(target),
          target !== 'BIGINT' && target !== 'HUGEINT',
        );
      }
      return staged(
        'VARCHAR',
        convert((value) => (typeof value === 'number' ? BigInt(value).toString() : asText(value))),
        castExpr(target),
        true,
      );
    case 'float':
      if (numbers === nonNull) {
        return target === 'DOUBLE'
          ? staged('DOUBLE', source, identity, false)
          : staged('DOUBLE', source, castExpr(target), true);
      }
      break;
    case 'decimal':
      if (numbers === nonNull) return staged('DOUBLE', source, castExpr(target), true);
      break;
    case 'temporal':
      if (dates === nonNull) {
        // Epoch milliseconds: no string formatting or parsing on the way.
        const values = convert((value) => (value as Date).getTime());
        const epoch = (ref: string): string => `epoch_ms(CAST(${ref} AS BIGINT))`;
        return staged(
          'DOUBLE',
          values,
          target === 'TIMESTAMP' ? epoch : (ref) => `CAST(${epoch(ref)} AS ${target})`,
          false,
        );
      }
      break;
    case 'blob': {
      const Blob = api.DuckDBBlobValue;
      const values = convert((value) => {
        if (value instanceof Uint8Array) return new Blob(value);
        if (typeof value === 'string') return new Blob(Buffer.from(value, 'utf8'));
        return fail(`a ${describeType(value)} value cannot be stored as BLOB`);
      });
      return staged('BLOB', values, identity, false);
    }
    case 'text':
      return staged('VARCHAR', strings === nonNull ? source : convert(asText), identity, false);
    case 'json':
      return staged(
        'VARCHAR',
        convert((value) => toJsonText(value)),
        castExpr('JSON'),
        false,
      );
    default:
      break;
  }
  return staged('VARCHAR', strings === nonNull ? source : convert(asText), castExpr(target), true);
}

/** A value as VARCHAR text; `fail` decides what a value without a text form becomes. */
function toText(api: Api, value: unknown, fail: (message: string) => null): string | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (value instanceof JsonText) return value.text;
      if (value instanceof Date)
        return isValidDate(value) ? value.toISOString() : fail('an invalid Date cannot be stored');
      if (value instanceof Uint8Array) return new api.DuckDBBlobValue(value).toString();
      return fail(`a ${describeType(value)} value cannot be stored`);
  }
}

/** A value as JSON text for a JSON column (a string that is not JSON becomes a JSON string). */
function toJsonText(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  if (typeof value === 'string') return isJsonText(value) ? value : JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return JSON.stringify(isValidDate(value) ? value.toISOString() : null);
  if (value instanceof Uint8Array) return JSON.stringify(base64(value));
  return 'null';
}
