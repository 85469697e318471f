/**
 * The DuckDB file: loading the engine, opening the file (its schema, the tables it holds, the
 * legacy `tester` views, its catalogue kept between runs) and reading rows back.
 */
export { loadDuckDB, preloadDuckDB } from './duckdb-module.js';
export { readExistingTables } from './existing-tables.js';
export type { ExistingTables, ExistingTableRows } from './existing-tables.js';
export { keepExistingTables, keptExistingTables } from './existing-tables-cache.js';
export { openDuckDb } from './open-duckdb.js';
export type { OpenedDuckDb } from './open-duckdb.js';
export { readRows } from './read-rows.js';
export { LEGACY_SCHEMA, refreshLegacyViews, refuseLegacyTables } from './tester-views.js';
