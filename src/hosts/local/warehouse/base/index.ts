/**
 * The warehouse's shared vocabulary: identifiers and their quoting, the errors it throws, a table's
 * state, values and column types as a connector gives them, the public row types, DuckDB's types.
 * Imports no other family.
 */
export { categoryOf, normalizeDbType, sqlTypeOf } from './column-types.js';
export type { Category, ColumnType } from './column-types.js';
export type { Api, Appender, Connection, DataChunk, DuckDBType, Instance, ResultReader } from './duckdb-types.js';
export { DELETED, FIVETRAN_ID, SCHEMA, SYNCED, checkName, foldCase, quoteIdent, tableRef } from './identifiers.js';
export { finalColumns, newTableState } from './table-state.js';
export type { Column, Op, Run, TableState } from './table-state.js';
export {
  INT64_MAX,
  INT64_MIN,
  JsonText,
  NARROW_INTEGER_RANGES,
  TWO_POW_63,
  base64,
  copyObjectValue,
  describeType,
  fivetranId,
  isJsonText,
  isValidDate,
  naturalType,
  widen,
} from './values.js';
export { columnLabel, sanitize, tableLabel, warehouseError } from './warehouse-errors.js';
export type { Row, TableDefinition, WarehouseCounts } from './warehouse-types.js';
