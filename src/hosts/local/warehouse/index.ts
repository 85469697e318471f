/**
 * The local warehouse: a batched writer of a connector's operations into a
 * DuckDB file, with the semantics of the Python connector SDK's local tester
 * (see warehouse.ts for how a write travels). DuckDB is loaded only when a
 * warehouse is opened.
 */
export { Warehouse } from './warehouse.js';
export { preloadDuckDB } from './duckdb-module.js';
export type { ColumnType } from './column-types.js';
export type { Row, TableDefinition, WarehouseCounts } from './warehouse-types.js';
