/**
 * The DuckDB names used across the warehouse, as types only: the runtime
 * module is loaded by `Warehouse.open()` (`await import()`), so importing the
 * warehouse costs nothing for commands that never open one.
 */
import type * as DuckDBApi from '@duckdb/node-api';

export type Api = typeof DuckDBApi;
export type Appender = DuckDBApi.DuckDBAppender;
export type Connection = DuckDBApi.DuckDBConnection;
export type Instance = DuckDBApi.DuckDBInstance;
export type DuckDBType = DuckDBApi.DuckDBType;
export type DataChunk = DuckDBApi.DuckDBDataChunk;
export type ResultReader = DuckDBApi.DuckDBResultReader;
