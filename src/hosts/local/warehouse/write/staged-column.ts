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
  JsonText,
  NARROW_INTEGER_RANGES,
  base64,
  describeType,
  isJsonText,
  isValidDate,
  columnLabel,
  warehouseError,
} from '../base/index.js';
import { takeCensus, type ColumnCensus } from './column-census.js';

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

/** One column of a run to stage. */
export interface ColumnToStage {
  api: Api;
  table: string;
  name: string;
  /** the column's type in the table */
  target: string;
  /** the run's column (shorter than the run when its last operations lack it) */
  source: unknown[];
  /** never throw and cast with TRY_CAST (keys of deletes: a key that cannot exist matches nothing) */
  lenient: boolean;
}

/** Converts one column's values for staging. */
export function stageColumn(column: ColumnToStage): StagedColumn {
  const staging = new ColumnStaging(column);
  return column.lenient ? staging.lenient() : staging.strict();
}

/**
 * The staging of one column: its census picks the staging type per category of the target
 * type; a category whose values do not fit its fast staging falls back to text and a checked cast.
 */
class ColumnStaging {
  readonly #column: ColumnToStage;

  constructor(column: ColumnToStage) {
    this.#column = column;
  }

  /** Throws the column's error. */
  readonly fail = (message: string): never => {
    throw warehouseError(`${columnLabel(this.#column.table, this.#column.name)}: ${message}`);
  };

  /** A value's text form, or the column's error. */
  readonly asText = (value: unknown): string => toText(this.#column.api, value, this.fail) as string;

  /** Every value converted by `to`, a missing one as null. */
  convert(to: (value: unknown) => unknown): unknown[] {
    const source = this.#column.source;
    const n = source.length;
    const values: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const value = source[i];
      values[i] = value === undefined || value === null ? null : to(value);
    }
    return values;
  }

  staged(
    stageType: StagedColumn['stageType'],
    values: unknown[],
    expr: (ref: string) => string,
    check: boolean,
  ): StagedColumn {
    return { name: this.#column.name, target: this.#column.target, stageType, values, expr, check };
  }

  /** As text, cast with TRY_CAST: nothing fails. */
  lenient(): StagedColumn {
    const { api, target } = this.#column;
    const values = this.convert((value) => toText(api, value, () => null));
    return this.staged('VARCHAR', values, (ref) => `TRY_CAST(${ref} AS ${target})`, false);
  }

  /** The fastest faithful staging for what the column holds. */
  strict(): StagedColumn {
    const census = takeCensus(this.#column.source, this.fail);
    return this.#byCategory(census) ?? this.#asCheckedText(census);
  }

  #byCategory(census: ColumnCensus): StagedColumn | undefined {
    const { source, target } = this.#column;
    const numbersOnly = census.numbers === census.nonNull;
    switch (categoryOf(target)) {
      case 'bool':
        return census.booleans === census.nonNull ? this.staged('BOOLEAN', source, identity, false) : undefined;
      case 'int':
        return this.#integers(census);
      case 'float':
        if (!numbersOnly) return undefined;
        return target === 'DOUBLE'
          ? this.staged('DOUBLE', source, identity, false)
          : this.staged('DOUBLE', source, castExpr(target), true);
      case 'decimal':
        return numbersOnly ? this.staged('DOUBLE', source, castExpr(target), true) : undefined;
      case 'temporal':
        return census.dates === census.nonNull ? this.#epochMilliseconds() : undefined;
      case 'blob':
        return this.#blobs();
      case 'text':
        return this.staged('VARCHAR', this.#texts(census), identity, false);
      case 'json':
        return this.staged('VARCHAR', this.convert(toJsonText), castExpr('JSON'), false);
      default:
        return undefined;
    }
  }

  /** Any other column: its text, cast and checked. */
  #asCheckedText(census: ColumnCensus): StagedColumn {
    return this.staged('VARCHAR', this.#texts(census), castExpr(this.#column.target), true);
  }

  /** The values as text: the column itself when it holds only strings. */
  #texts(census: ColumnCensus): unknown[] {
    return census.strings === census.nonNull ? this.#column.source : this.convert(this.asText);
  }

  /** An integer column: as DOUBLE when numbers, as BIGINT when they fit INT64, else as text. */
  #integers(census: ColumnCensus): StagedColumn {
    const { source, target } = this.#column;
    if (census.numbers > 0 && !census.integers) this.#rejectNumbers();
    const checked = target !== 'BIGINT' && target !== 'HUGEINT';
    if (census.numbers === census.nonNull) {
      // Exact: integers below 2^63 in magnitude convert from DOUBLE as they are; into SMALLINT or
      // INTEGER without a check when every one is in its range.
      const range = NARROW_INTEGER_RANGES.get(target);
      const fits = range !== undefined && census.min >= range[0] && census.max <= range[1];
      return this.staged('DOUBLE', source, castExpr(target), checked && !fits);
    }
    if (census.numbers + census.bigints === census.nonNull && census.int64) {
      const values = this.convert((value) => (typeof value === 'bigint' ? value : BigInt(value as number)));
      return this.staged('BIGINT', values, target === 'BIGINT' ? identity : castExpr(target), checked);
    }
    const values = this.convert((value) => (typeof value === 'number' ? BigInt(value).toString() : this.asText(value)));
    return this.staged('VARCHAR', values, castExpr(target), true);
  }

  /** DuckDB would round a fraction into an integer column: a fraction or an out-of-range number fails. */
  #rejectNumbers(): never {
    const target = this.#column.target;
    for (const value of this.#column.source) {
      if (typeof value === 'number' && !Number.isInteger(value))
        this.fail(`a non-integer number cannot be stored as ${target}`);
    }
    return this.fail(`a number out of range cannot be stored as ${target}`);
  }

  /** Dates as epoch milliseconds: no string formatting or parsing on the way. */
  #epochMilliseconds(): StagedColumn {
    const target = this.#column.target;
    const values = this.convert((value) => (value as Date).getTime());
    const epoch = (ref: string): string => `epoch_ms(CAST(${ref} AS BIGINT))`;
    return this.staged(
      'DOUBLE',
      values,
      target === 'TIMESTAMP' ? epoch : (ref) => `CAST(${epoch(ref)} AS ${target})`,
      false,
    );
  }

  /** Bytes as they are, a string as its UTF-8 bytes. */
  #blobs(): StagedColumn {
    const Blob = this.#column.api.DuckDBBlobValue;
    const values = this.convert((value) => {
      if (value instanceof Uint8Array) return new Blob(value);
      if (typeof value === 'string') return new Blob(Buffer.from(value, 'utf8'));
      return this.fail(`a ${describeType(value)} value cannot be stored as BLOB`);
    });
    return this.staged('BLOB', values, identity, false);
  }
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
