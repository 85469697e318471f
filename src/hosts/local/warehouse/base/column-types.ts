/**
 * Column types: the SDK's type names as DuckDB types, DuckDB's spellings
 * brought to one form, and the coarse category that decides how a column's
 * values are staged.
 */
import { columnLabel, warehouseError } from './warehouse-errors.js';

/** A column type as a connector declares it (the Python SDK's names); defined by the connector layer. */
import type { ColumnType } from '../../../../connector/index.js';
export type { ColumnType };

const SIMPLE_TYPES: Record<string, string> = {
  BOOLEAN: 'BOOLEAN',
  SHORT: 'SMALLINT',
  INT: 'INTEGER',
  LONG: 'BIGINT',
  FLOAT: 'FLOAT',
  DOUBLE: 'DOUBLE',
  NAIVE_DATE: 'DATE',
  NAIVE_DATETIME: 'TIMESTAMP',
  UTC_DATETIME: 'TIMESTAMPTZ',
  BINARY: 'BLOB',
  XML: 'VARCHAR',
  STRING: 'VARCHAR',
  JSON: 'JSON',
};

export function sqlTypeOf(type: unknown, table: string, column: string): string {
  if (typeof type === 'string') {
    const simple = Object.hasOwn(SIMPLE_TYPES, type) ? SIMPLE_TYPES[type] : undefined;
    if (simple !== undefined) return simple;
  } else if (type !== null && typeof type === 'object' && (type as { type?: unknown }).type === 'DECIMAL') {
    const { precision, scale } = type as { precision?: unknown; scale?: unknown };
    if (
      typeof precision === 'number' &&
      typeof scale === 'number' &&
      Number.isInteger(precision) &&
      Number.isInteger(scale) &&
      precision >= 1 &&
      precision <= 38 &&
      scale >= 0 &&
      scale <= precision
    ) {
      return `DECIMAL(${precision},${scale})`;
    }
    throw warehouseError(`${columnLabel(table, column)}: DECIMAL needs integer precision 1..38 and scale 0..precision`);
  }
  throw warehouseError(`${columnLabel(table, column)}: unknown column type`);
}

/** A type as information_schema spells it, in the spelling used here. */
export function normalizeDbType(type: string): string {
  const upper = type.toUpperCase();
  if (upper === 'TIMESTAMP WITH TIME ZONE') return 'TIMESTAMPTZ';
  if (upper === 'TIMESTAMP WITHOUT TIME ZONE') return 'TIMESTAMP';
  return upper;
}

export type Category = 'bool' | 'int' | 'float' | 'decimal' | 'temporal' | 'blob' | 'text' | 'json' | 'other';

export function categoryOf(type: string): Category {
  switch (type) {
    case 'BOOLEAN':
      return 'bool';
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
    case 'HUGEINT':
      return 'int';
    case 'FLOAT':
    case 'DOUBLE':
      return 'float';
    case 'DATE':
    case 'TIMESTAMP':
    case 'TIMESTAMPTZ':
      return 'temporal';
    case 'BLOB':
      return 'blob';
    case 'VARCHAR':
      return 'text';
    case 'JSON':
      return 'json';
    default:
      return type.startsWith('DECIMAL(') ? 'decimal' : 'other';
  }
}
