/**
 * The local warehouse: a batched writer of a connector's operations into a
 * DuckDB file, with the semantics of the Python connector SDK's local tester
 * (see warehouse.ts for how a write travels). DuckDB is loaded only when a
 * warehouse is opened.
 */
export { Warehouse } from './warehouse.js';
export { preloadDuckDB } from './engine/index.js';
export type { ColumnType, Row, TableDefinition, WarehouseCounts } from './base/index.js';
