import type { ColumnType, TableDefinition } from '../../../connector/index.js';
import { ConnectorError } from '../../../errors/index.js';

/**
 * The connector's `schema()` as the partner SDK's tables (common.proto `Table`, `Column`): each
 * declared column with its DataType (a DECIMAL with its precision and scale), the primary key
 * columns marked. A primary key column with no declared type is sent as UNSPECIFIED, as the Python
 * connector SDK does: Fivetran types it from the values. Tables come without a schema name
 * (`without_schema`): a connector here writes tables, the destination schema is the connection's.
 */

const DATA_TYPES = new Set([
  'BOOLEAN',
  'SHORT',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'NAIVE_DATE',
  'NAIVE_DATETIME',
  'UTC_DATETIME',
  'BINARY',
  'XML',
  'STRING',
  'JSON',
]);

export interface ColumnMessage {
  name: string;
  type: string;
  primary_key: boolean;
  params?: { decimal: { precision: number; scale: number } };
}

export interface TableMessage {
  name: string;
  columns: ColumnMessage[];
}

export function tableMessages(tables: unknown): TableMessage[] {
  if (!Array.isArray(tables)) throw schemaError('schema() must return an array of { table, primary_key?, columns? }');
  const seen = new Set<string>();
  return tables.map((definition: TableDefinition) => {
    if (
      definition === null ||
      typeof definition !== 'object' ||
      typeof definition.table !== 'string' ||
      definition.table === ''
    ) {
      throw schemaError('each table of schema() needs a `table` name');
    }
    const { table } = definition;
    if (seen.has(table)) throw schemaError(`schema() declares table '${table}' twice`);
    seen.add(table);
    const keys = definition.primary_key ?? [];
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string'))
      throw schemaError(`table '${table}': primary_key must be an array of column names`);
    const columns: ColumnMessage[] = Object.entries(definition.columns ?? {}).map(([name, type]) => ({
      name,
      ...dataType(type, table, name),
      primary_key: keys.includes(name),
    }));
    for (const key of keys)
      if (!columns.some((c) => c.name === key)) columns.push({ name: key, type: 'UNSPECIFIED', primary_key: true });
    return { name: table, columns };
  });
}

/** The declared column types of each table, for the values of its records. */
export function columnTypes(tables: readonly TableDefinition[]): Map<string, Map<string, ColumnType>> {
  return new Map(tables.map((t) => [t.table, new Map(Object.entries(t.columns ?? {}))]));
}

function dataType(type: unknown, table: string, column: string): Pick<ColumnMessage, 'type' | 'params'> {
  if (typeof type === 'string' && DATA_TYPES.has(type)) return { type };
  if (type !== null && typeof type === 'object' && (type as { type?: unknown }).type === 'DECIMAL') {
    const { precision, scale } = type as { precision?: unknown; scale?: unknown };
    if (
      Number.isInteger(precision) &&
      Number.isInteger(scale) &&
      (precision as number) >= 1 &&
      (precision as number) <= 38 &&
      (scale as number) >= 0 &&
      (scale as number) <= (precision as number)
    ) {
      return { type: 'DECIMAL', params: { decimal: { precision: precision as number, scale: scale as number } } };
    }
    throw schemaError(
      `table '${table}' column '${column}': DECIMAL needs integer precision 1..38 and scale 0..precision`,
    );
  }
  throw schemaError(
    `table '${table}' column '${column}': unknown column type (use BOOLEAN, SHORT, INT, LONG, FLOAT, DOUBLE, DECIMAL, NAIVE_DATE, NAIVE_DATETIME, UTC_DATETIME, BINARY, XML, STRING or JSON)`,
  );
}

function schemaError(message: string): ConnectorError {
  return new ConnectorError(message, { code: 'schema_invalid', hint: "fix the connector's schema()" });
}
