/**
 * The local warehouse: a batched writer of a connector's operations into a
 * DuckDB file, with the semantics of the Python connector SDK's local tester.
 *
 * Every table lives in schema `tester` and carries its data columns plus
 * `_fivetran_synced` (TIMESTAMPTZ, time of the write) and `_fivetran_deleted`
 * (BOOLEAN). A table without a primary key is keyed by `_fivetran_id`, the
 * sha1 hex of the canonical JSON of the row's non-null data (sorted keys);
 * update and delete on such a table find the row by the `_fivetran_id` they
 * are given, else by the one computed from the values given (so a delete
 * names the whole row).
 *
 * Semantics: upsert replaces the whole row (last write wins, also within a
 * batch); update merges the given columns (a missing row is inserted; a
 * soft-deleted row is live again); delete sets `_fivetran_deleted`; truncate
 * marks every live row deleted. Operations on a table apply in issue order.
 *
 * How a write travels:
 * - `upsert`/`update`/`delete`/`truncate` copy the row and append it to the
 *   table's pending operations (consecutive operations of one kind form a run)
 *   and resolve at once. When a table holds `batchSize` operations, its batch
 *   is written while the connector goes on producing the next one; the call
 *   that fills a batch waits only for the batch before it (backpressure: one
 *   batch in flight).
 * - All database work goes through one promise chain, so batches, declarations
 *   and reads take effect in the order they were issued.
 * - A run is written in three steps: its values are converted column by column
 *   and appended as DuckDB data chunks into a TEMP staging table; every cast
 *   the staging needs is checked with TRY_CAST so a bad value is reported by
 *   table and column; then, in one transaction, the schema changes (CREATE,
 *   ADD COLUMN, ALTER TYPE) and one set-based statement (INSERT OR REPLACE for
 *   upserts, UPDATE + INSERT for updates, UPDATE for deletes) are applied.
 * - Columns are typed by declaration when declared, else inferred from their
 *   first non-null value and widened when a later value does not fit.
 *   Schema changes are counted as if the rows were written one at a time, so
 *   the count does not depend on the batch size.
 *
 * Errors thrown from here are plain `Error`s naming the table and column; they
 * never carry row values (values may be secrets), which is also why DuckDB's
 * own messages are reduced to their category ("Constraint Error", ...).
 *
 * `@duckdb/node-api` is loaded lazily by `open()`, so importing this module
 * costs nothing for commands that never open a warehouse.
 */
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import type * as DuckDBApi from '@duckdb/node-api';

export type ColumnType =
  | 'BOOLEAN'
  | 'SHORT'
  | 'INT'
  | 'LONG'
  | 'FLOAT'
  | 'DOUBLE'
  | 'NAIVE_DATE'
  | 'NAIVE_DATETIME'
  | 'UTC_DATETIME'
  | 'BINARY'
  | 'XML'
  | 'STRING'
  | 'JSON'
  | { type: 'DECIMAL'; precision: number; scale: number };

export interface TableDefinition {
  table: string;
  primary_key?: string[];
  columns?: Record<string, ColumnType>;
}

export type Row = Record<string, unknown>;

export interface WarehouseCounts {
  schemaChanges: number;
}

type Api = typeof DuckDBApi;
type Connection = DuckDBApi.DuckDBConnection;
type Instance = DuckDBApi.DuckDBInstance;

const SCHEMA = 'tester';
const SYNCED = '_fivetran_synced';
const DELETED = '_fivetran_deleted';
const FIVETRAN_ID = '_fivetran_id';
const DEFAULT_BATCH_SIZE = 50_000;
const STAGE = '__connector_auth_stage';
const MERGED = '__connector_auth_merged';
/** marks failures of the staging cast check in DuckDB's error() messages */
const CHECK_MARK = 'connector_auth_cast_check';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT128_MIN = -(2n ** 127n);
const INT128_MAX = 2n ** 127n - 1n;
const TWO_POW_63 = 2 ** 63;

const RESOLVED: Promise<void> = Promise.resolve();
const noop = (): void => {};

/** Paths opened by this process: DuckDB must not attach one file twice. */
const openPaths = new Set<string>();

// ---------------------------------------------------------------------------
// Errors

/** Errors built here carry no row values and are rethrown as they are. */
const safeErrors = new WeakSet<Error>();

function warehouseError(message: string): Error {
  const error = new Error(`warehouse: ${message}`);
  safeErrors.add(error);
  return error;
}

function named(name: string): string {
  return JSON.stringify(name);
}

function tableLabel(table: string): string {
  return `table ${named(table)}`;
}

function columnLabel(table: string, column: string): string {
  return `table ${named(table)}, column ${named(column)}`;
}

/**
 * An error from DuckDB reduced to its category: its messages quote the
 * offending values ("Duplicate key "id: 5"", "Could not convert string 'x'").
 */
function sanitize(error: unknown, context: string): Error {
  if (error instanceof Error && safeErrors.has(error)) return error;
  const message = error instanceof Error ? error.message : '';
  const category = /^([A-Za-z ]{1,40} Error):/.exec(message)?.[1];
  return warehouseError(`${context} failed${category === undefined ? '' : ` (${category})`}`);
}

// ---------------------------------------------------------------------------
// Identifiers and types

function checkName(kind: 'table' | 'column', name: unknown, table?: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0')) {
    const where = table === undefined ? '' : `${tableLabel(table)}: `;
    throw warehouseError(`${where}invalid ${kind} name: it must be a non-empty string without NUL characters`);
  }
  return name;
}

/** DuckDB identifiers are case-insensitive (ASCII folding), even when quoted. */
function foldCase(name: string): string {
  return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function tableRef(table: string): string {
  return `${quoteIdent(SCHEMA)}.${quoteIdent(table)}`;
}

const STAGE_REF = `temp.main.${quoteIdent(STAGE)}`;
const MERGED_REF = `temp.main.${quoteIdent(MERGED)}`;

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

function sqlTypeOf(type: unknown, table: string, column: string): string {
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
function normalizeDbType(type: string): string {
  const upper = type.toUpperCase();
  if (upper === 'TIMESTAMP WITH TIME ZONE') return 'TIMESTAMPTZ';
  if (upper === 'TIMESTAMP WITHOUT TIME ZONE') return 'TIMESTAMP';
  return upper;
}

type Category = 'bool' | 'int' | 'float' | 'decimal' | 'temporal' | 'blob' | 'text' | 'json' | 'other';

function categoryOf(type: string): Category {
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

// ---------------------------------------------------------------------------
// Values

/** An object or array value, serialized when it was written. */
class JsonText {
  constructor(readonly text: string) {}
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  if (Array.isArray(value)) return 'array';
  return value.constructor?.name ?? 'object';
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The stored form of one value. Buffered rows must not change when the caller
 * reuses its objects, so bytes are copied and objects serialized here (Dates
 * are kept as they are).
 */
function copyObjectValue(value: object, table: string, column: string): unknown {
  if (value instanceof Date) return value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw warehouseError(`${columnLabel(table, column)}: binary values must be Uint8Array or Buffer, not ${describeType(value)}`);
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value, jsonReplacer);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    throw warehouseError(`${columnLabel(table, column)}: the ${describeType(value)} value cannot be serialized to JSON`);
  }
  return new JsonText(text);
}

/** The column type a value suggests when its column is not declared. */
function naturalType(value: unknown): string {
  switch (typeof value) {
    case 'boolean':
      return 'BOOLEAN';
    case 'number':
      return Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63 ? 'BIGINT' : 'DOUBLE';
    case 'bigint':
      if (value >= INT64_MIN && value <= INT64_MAX) return 'BIGINT';
      return value >= INT128_MIN && value <= INT128_MAX ? 'HUGEINT' : 'VARCHAR';
    case 'object':
      if (value instanceof Date) return 'TIMESTAMPTZ';
      if (value instanceof Uint8Array) return 'BLOB';
      if (value instanceof JsonText) return 'JSON';
      return 'VARCHAR';
    default:
      return 'VARCHAR';
  }
}

/** The type of an inferred column once `value` is written to it. */
function widen(type: string, value: unknown): string {
  switch (type) {
    case 'VARCHAR':
      return type;
    case 'BIGINT':
      if (typeof value === 'number') {
        return Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63 ? type : 'DOUBLE';
      }
      if (typeof value === 'bigint') {
        if (value >= INT64_MIN && value <= INT64_MAX) return type;
        return value >= INT128_MIN && value <= INT128_MAX ? 'HUGEINT' : 'VARCHAR';
      }
      return 'VARCHAR';
    case 'HUGEINT':
      if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 127 ? type : 'DOUBLE';
      if (typeof value === 'bigint') return value >= INT128_MIN && value <= INT128_MAX ? type : 'VARCHAR';
      return 'VARCHAR';
    case 'DOUBLE':
      return typeof value === 'number' || typeof value === 'bigint' ? type : 'VARCHAR';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? type : 'VARCHAR';
    case 'TIMESTAMPTZ':
      return value instanceof Date ? type : 'VARCHAR';
    case 'BLOB':
      return value instanceof Uint8Array ? type : 'VARCHAR';
    case 'JSON':
      return value instanceof JsonText ? type : 'VARCHAR';
    default:
      // A type no inference produces (a column found in the file): values are
      // cast to it, and a value that does not cast is reported.
      return type;
  }
}

function isValidDate(value: Date): boolean {
  return !Number.isNaN(value.getTime());
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Canonical JSON: sorted keys, no undefined members; used for `_fivetran_id`. */
function canonicalJson(value: unknown, depth: number): string {
  if (depth > 100) throw new Error('too deep');
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value instanceof Date) return JSON.stringify(isValidDate(value) ? value.toISOString() : 'Invalid Date');
      if (value instanceof Uint8Array) return JSON.stringify(`base64:${base64(value)}`);
      if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return canonicalJson(toJSON.call(value), depth + 1);
      const record = value as Record<string, unknown>;
      const members = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], depth + 1)}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new Error('unsupported');
  }
}

// ---------------------------------------------------------------------------
// Tables

interface Column {
  name: string;
  /** undefined: a primary-key column declared without a type, before data. */
  type: string | undefined;
  declared: boolean;
  /** the column exists in the database */
  exists: boolean;
}

/**
 * A run of consecutive operations of one kind, buffered by column: value i of
 * a column belongs to operation i; `undefined` (or a hole) means the operation
 * did not give the column, `null` that it gave null.
 */
interface Run {
  kind: 'upsert' | 'update' | 'delete';
  n: number;
  columns: Map<string, unknown[]>;
}

type Op = Run | { kind: 'truncate' };

interface TableState {
  name: string;
  keys: string[];
  keyless: boolean;
  /** by canonical name, in table order; includes `_fivetran_id` for keyless tables */
  columns: Map<string, Column>;
  exists: boolean;
  declared: boolean;
  /** written to in this session */
  written: boolean;
  /** found in the file with neither a primary key nor `_fivetran_id`: not ours */
  foreign: boolean;
  /** case-folded name → the spelling used for the column */
  spelling: Map<string, string>;
  /** a row's key as given → canonical column name (cache) */
  rawNames: Map<string, string>;
  pending: Op[];
  pendingCount: number;
}

function newTableState(name: string, keys: string[], exists: boolean): TableState {
  const keyless = keys.length === 0;
  const state: TableState = {
    name,
    keys: keyless ? [FIVETRAN_ID] : keys,
    keyless,
    columns: new Map(),
    exists,
    declared: false,
    written: false,
    foreign: false,
    spelling: new Map(),
    rawNames: new Map(),
    pending: [],
    pendingCount: 0,
  };
  if (keyless) {
    state.columns.set(FIVETRAN_ID, { name: FIVETRAN_ID, type: 'VARCHAR', declared: true, exists });
    state.spelling.set(FIVETRAN_ID, FIVETRAN_ID);
  } else {
    for (const key of keys) {
      state.spelling.set(foldCase(key), key);
      state.columns.set(key, { name: key, type: undefined, declared: false, exists: false });
    }
  }
  return state;
}

/** What one run does to a table's schema. */
interface Plan {
  create: boolean;
  changes: number;
  /** final type of every column that has a non-null value in the run */
  types: Map<string, string>;
  /** columns given in the run (own property, null included), first-seen order */
  present: string[];
}

/** One staged column: its values converted for a staging column type. */
interface StagedColumn {
  name: string;
  target: string;
  stageType: 'DOUBLE' | 'VARCHAR' | 'BOOLEAN' | 'BIGINT' | 'BLOB' | 'INTEGER';
  values: unknown[];
  /** SQL turning the staging column `ref` into the target type */
  expr: (ref: string) => string;
  /** the cast can fail: check it with TRY_CAST before writing */
  check: boolean;
}

function castExpr(target: string): (ref: string) => string {
  return (ref) => `CAST(${ref} AS ${target})`;
}

const identity = (ref: string): string => ref;

// ---------------------------------------------------------------------------

export class Warehouse {
  readonly #api: Api;
  readonly #instance: Instance;
  readonly #conn: Connection;
  readonly #pathKey: string;
  readonly #batchSize: number;
  readonly #tables = new Map<string, TableState>();
  /** table names as written by the connector → state (cache) */
  readonly #byRawName = new Map<string, TableState>();
  #chain: Promise<unknown> = RESOLVED;
  /** the layout of the TEMP staging table, while it exists and is empty */
  #stage: string | undefined;
  /** the last batch handed to the chain because it was full */
  #lastWrite: Promise<void> = RESOLVED;
  #failure: Error | undefined;
  #closing = false;
  #schemaChanges = 0;

  private constructor(api: Api, instance: Instance, conn: Connection, pathKey: string, batchSize: number) {
    this.#api = api;
    this.#instance = instance;
    this.#conn = conn;
    this.#pathKey = pathKey;
    this.#batchSize = batchSize;
  }

  /** Opens (or creates) the DuckDB file at `path`; its directory must exist. */
  static async open(path: string, options: { batchSize?: number } = {}): Promise<Warehouse> {
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
      throw warehouseError('the warehouse path must be a non-empty string');
    }
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw warehouseError('batchSize must be a positive integer');
    }
    const pathKey = resolvePath(path);
    if (openPaths.has(pathKey)) {
      throw warehouseError(`${path} is already open in this process; close it first`);
    }
    openPaths.add(pathKey);
    try {
      const api = await import('@duckdb/node-api');
      let instance: Instance;
      try {
        // One DuckDB thread: a batch's statements run one after another, and
        // the connector runs on the main thread meanwhile. More threads cost
        // about a quarter more CPU on two cores without making batches faster.
        instance = await api.DuckDBInstance.create(path, { threads: '1' });
      } catch (error) {
        throw warehouseError(`cannot open ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      let conn: Connection;
      try {
        conn = await instance.connect();
      } catch (error) {
        instance.closeSync();
        throw sanitize(error, `opening ${path}`);
      }
      try {
        // TIMESTAMP <-> TIMESTAMPTZ casts use the session time zone.
        await conn.run(`SET TimeZone = 'UTC'`);
      } catch {
        // Without ICU, DuckDB has no time zones and already works in UTC.
      }
      const warehouse = new Warehouse(api, instance, conn, pathKey, batchSize);
      try {
        await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(SCHEMA)}`);
        await warehouse.#loadExisting();
      } catch (error) {
        conn.closeSync();
        instance.closeSync();
        throw sanitize(error, `opening ${path}`);
      }
      return warehouse;
    } catch (error) {
      openPaths.delete(pathKey);
      throw error;
    }
  }

  /** Schema changes so far: tables created, columns added, columns widened. */
  get schemaChanges(): number {
    return this.#schemaChanges;
  }

  declare(tables: TableDefinition[]): Promise<void> {
    let work: (() => Promise<void>)[];
    try {
      this.#assertUsable();
      work = this.#registerDeclarations(tables);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      for (const apply of work) await apply();
    }, true);
  }

  upsert(table: string, row: Row): Promise<void> {
    return this.#push(table, 'upsert', row);
  }

  update(table: string, row: Row): Promise<void> {
    return this.#push(table, 'update', row);
  }

  delete(table: string, keys: Row): Promise<void> {
    return this.#push(table, 'delete', keys);
  }

  truncate(table: string): Promise<void> {
    return this.#push(table, 'truncate', undefined);
  }

  /** Resolves once everything issued so far is committed to the file. */
  async flush(): Promise<void> {
    this.#assertUsable();
    await this.#flushAll();
  }

  /**
   * Flushes, then closes the file. Rejects (after closing) when a write
   * failed, so a failure of the last batches is not lost.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    let failure: unknown;
    try {
      if (this.#failure === undefined) await this.#flushAll();
    } catch (error) {
      failure = error;
    }
    await this.#chain;
    try {
      this.#conn.closeSync();
      this.#instance.closeSync();
    } finally {
      openPaths.delete(this.#pathKey);
    }
    failure ??= this.#failure;
    if (failure !== undefined) throw failure;
  }

  /** For tests and summaries: the rows of a table, ordered by primary key. */
  async read(table: string): Promise<Row[]> {
    checkName('table', table);
    await this.flush();
    return this.#enqueue(async () => {
      const state = this.#tables.get(foldCase(table));
      if (state === undefined || !state.exists) return [];
      const order = state.keys.map(quoteIdent).join(', ');
      let reader: DuckDBApi.DuckDBResultReader;
      try {
        reader = await this.#conn.runAndReadAll(`SELECT * FROM ${tableRef(state.name)} ORDER BY ${order}`);
      } catch (error) {
        throw sanitize(error, `reading ${tableLabel(state.name)}`);
      }
      const types = reader.columnTypes();
      const names = reader.columnNames();
      const rows = reader.getRowObjectsJS() as Row[];
      const typeId = this.#api.DuckDBTypeId;
      for (let c = 0; c < names.length; c++) {
        const name = names[c] as string;
        const type = types[c];
        if (type === undefined) continue;
        if (type.alias === 'JSON') {
          for (const row of rows) if (typeof row[name] === 'string') row[name] = JSON.parse(row[name] as string);
        } else if (type.typeId === typeId.BIGINT || type.typeId === typeId.HUGEINT) {
          for (const row of rows) {
            const value = row[name];
            if (typeof value === 'bigint' && value >= -9007199254740991n && value <= 9007199254740991n) {
              row[name] = Number(value);
            }
          }
        }
      }
      return rows;
    }, false);
  }

  // -------------------------------------------------------------------------
  // Buffering

  #assertUsable(): void {
    if (this.#closing) throw warehouseError('the warehouse is closed');
    if (this.#failure !== undefined) throw this.#failure;
  }

  #push(table: string, kind: Op['kind'], row: Row | undefined): Promise<void> {
    let state: TableState;
    try {
      this.#assertUsable();
      state = this.#tableForWrite(table);
      if (kind === 'truncate') {
        if (state.pending[state.pending.length - 1]?.kind !== 'truncate') state.pending.push({ kind });
      } else {
        const last = state.pending[state.pending.length - 1];
        if (last !== undefined && last.kind === kind) {
          this.#append(state, last as Run, row);
        } else {
          const run: Run = { kind, n: 0, columns: new Map() };
          this.#append(state, run, row);
          state.pending.push(run);
        }
      }
    } catch (error) {
      return Promise.reject(error);
    }
    state.pendingCount++;
    if (state.pendingCount < this.#batchSize) return RESOLVED;
    // The batch is full: write it while the caller builds the next one, and
    // hold the caller back only while an earlier batch is still being written
    // (at most one batch in flight per warehouse). A failure reaches the
    // caller through that promise or, later, through #failure.
    const earlier = this.#lastWrite;
    const write = this.#scheduleTable(state);
    write.catch(noop);
    this.#lastWrite = write;
    return earlier;
  }

  #tableForWrite(table: string): TableState {
    const known = this.#byRawName.get(table);
    if (known !== undefined) return known;
    checkName('table', table);
    const folded = foldCase(table);
    let state = this.#tables.get(folded);
    if (state === undefined) {
      // Never declared: keyed by `_fivetran_id`, every column inferred.
      state = newTableState(table, [], false);
      this.#tables.set(folded, state);
    }
    if (state.foreign) {
      throw warehouseError(
        `${tableLabel(state.name)} exists in the warehouse without a primary key or ${FIVETRAN_ID}; delete the warehouse file to start over`,
      );
    }
    state.written = true;
    this.#byRawName.set(table, state);
    return state;
  }

  #columnName(state: TableState, key: string): string {
    checkName('column', key, state.name);
    const folded = foldCase(key);
    if (folded === SYNCED || folded === DELETED || (folded === FIVETRAN_ID && !state.keyless)) {
      throw warehouseError(`${columnLabel(state.name, key)}: the column name is reserved for the warehouse`);
    }
    let name = state.spelling.get(folded);
    if (name === undefined) {
      name = key;
      state.spelling.set(folded, name);
    }
    state.rawNames.set(key, name);
    return name;
  }

  /**
   * Appends one operation's values to the run, under canonical column names,
   * its key checked. On error the run is left as it was.
   */
  #append(state: TableState, run: Run, row: unknown): void {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw warehouseError(`${tableLabel(state.name)}: ${run.kind === 'delete' ? 'keys' : 'a row'} must be an object`);
    }
    const source = row as Row;
    const n = run.n;
    const columns = run.columns;
    const keysOnly = run.kind === 'delete';
    try {
      for (const key of Object.keys(source)) {
        let value = source[key];
        if (value === undefined) continue;
        const name = state.rawNames.get(key) ?? this.#columnName(state, key);
        if (keysOnly && !state.keys.includes(name)) continue;
        if (typeof value === 'object') {
          if (value !== null) value = copyObjectValue(value, state.name, name);
        } else if (typeof value === 'function' || typeof value === 'symbol') {
          throw warehouseError(`${columnLabel(state.name, name)}: values of type ${typeof value} cannot be stored`);
        }
        let values = columns.get(name);
        if (values === undefined) {
          values = n === 0 ? [] : new Array(n);
          columns.set(name, values);
        } else if (values.length > n) {
          throw warehouseError(`${columnLabel(state.name, name)}: given twice in one row (column names are case-insensitive)`);
        }
        values[n] = value;
      }
      if (state.keyless) {
        let values = columns.get(FIVETRAN_ID);
        const given = values?.[n];
        if (given === undefined || given === null) {
          const id = this.#rowHash(state, source);
          if (values === undefined) {
            values = n === 0 ? [] : new Array(n);
            columns.set(FIVETRAN_ID, values);
          }
          values[n] = id;
        } else if (typeof given !== 'string') {
          throw warehouseError(`${columnLabel(state.name, FIVETRAN_ID)}: must be a string`);
        }
      } else {
        for (const key of state.keys) {
          const value = columns.get(key)?.[n];
          if (value === undefined || value === null) {
            throw warehouseError(`${columnLabel(state.name, key)}: the primary key value is missing or null`);
          }
        }
      }
    } catch (error) {
      for (const values of columns.values()) if (values.length > n) values.length = n;
      throw error;
    }
    run.n = n + 1;
  }

  /** `_fivetran_id`: sha1 hex of the canonical JSON of the row's non-null data. */
  #rowHash(state: TableState, row: Row): string {
    const members: [string, unknown][] = [];
    for (const key of Object.keys(row)) {
      const value = row[key];
      if (value === undefined || value === null) continue;
      const name = state.rawNames.get(key) ?? this.#columnName(state, key);
      if (name === FIVETRAN_ID) continue;
      members.push([name, value]);
    }
    members.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let json: string;
    try {
      json = `{${members.map(([name, value]) => `${JSON.stringify(name)}:${canonicalJson(value, 0)}`).join(',')}}`;
    } catch {
      throw warehouseError(`${tableLabel(state.name)}: the row cannot be serialized to compute ${FIVETRAN_ID}`);
    }
    return createHash('sha1').update(json).digest('hex');
  }

  // -------------------------------------------------------------------------
  // The chain

  #enqueue<T>(task: () => Promise<T>, poisons: boolean): Promise<T> {
    const run = this.#chain.then(async () => {
      if (this.#failure !== undefined) throw this.#failure;
      try {
        return await task();
      } catch (error) {
        const failure = sanitize(error, 'writing to the warehouse');
        if (poisons) this.#failure = failure;
        throw failure;
      }
    });
    this.#chain = run.then(noop, noop);
    return run;
  }

  #scheduleTable(state: TableState): Promise<void> {
    const ops = state.pending;
    state.pending = [];
    state.pendingCount = 0;
    return this.#enqueue(() => this.#writeOps(state, ops), true);
  }

  async #flushAll(): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const state of this.#tables.values()) {
      if (state.pendingCount > 0) writes.push(this.#scheduleTable(state));
    }
    writes.push(this.#enqueue(async () => {}, false));
    await Promise.all(writes);
  }

  async #writeOps(state: TableState, ops: Op[]): Promise<void> {
    for (const op of ops) {
      if (op.kind !== 'truncate' && op.n === 0) continue;
      try {
        switch (op.kind) {
          case 'upsert':
            await this.#writeUpserts(state, op);
            break;
          case 'update':
            await this.#writeUpdates(state, op);
            break;
          case 'delete':
            await this.#writeDeletes(state, op);
            break;
          case 'truncate':
            await this.#writeTruncate(state);
            break;
        }
      } catch (error) {
        await this.#resetStage();
        throw sanitize(error, `writing ${op.kind}s to ${tableLabel(state.name)}`);
      }
    }
  }

  /**
   * Runs `body` in one transaction, then `after`, in a single round trip to
   * DuckDB: every await here lets the connector run on until its next full
   * batch, so a batch costs one round trip.
   */
  async #execute(body: string[], after: string[] = []): Promise<void> {
    const statements = body.length === 0 ? after : ['BEGIN TRANSACTION', ...body, 'COMMIT', ...after];
    if (statements.length === 0) return;
    try {
      await this.#conn.run(statements.join(';\n'));
    } catch (error) {
      try {
        await this.#conn.run('ROLLBACK');
      } catch {
        // no transaction was open
      }
      throw error;
    }
  }

  /** Drops the temporary tables. */
  async #resetStage(): Promise<void> {
    this.#stage = undefined;
    try {
      await this.#conn.run(`DROP TABLE IF EXISTS ${STAGE_REF}; DROP TABLE IF EXISTS ${MERGED_REF}`);
    } catch {
      // nothing to free
    }
  }

  // -------------------------------------------------------------------------
  // Schema

  async #loadExisting(): Promise<void> {
    const columns = await this.#conn.runAndReadAll(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = '${SCHEMA}' AND table_catalog = current_database()
       ORDER BY table_name, ordinal_position`,
    );
    const keys = await this.#conn.runAndReadAll(
      `SELECT table_name, constraint_column_names FROM duckdb_constraints()
       WHERE schema_name = '${SCHEMA}' AND database_name = current_database() AND constraint_type = 'PRIMARY KEY'`,
    );
    const keysByTable = new Map<string, string[]>();
    for (const [table, names] of keys.getRowsJS() as [string, string[]][]) keysByTable.set(table, names);
    const byTable = new Map<string, [string, string][]>();
    for (const [table, column, type] of columns.getRowsJS() as [string, string, string][]) {
      let list = byTable.get(table);
      if (list === undefined) byTable.set(table, (list = []));
      list.push([column, normalizeDbType(type)]);
    }
    for (const [table, list] of byTable) {
      let tableKeys = keysByTable.get(table) ?? [];
      if (tableKeys.length === 1 && tableKeys[0] === FIVETRAN_ID) tableKeys = [];
      const state = newTableState(table, tableKeys, true);
      if (tableKeys.length === 0 && !list.some(([column]) => column === FIVETRAN_ID)) state.foreign = true;
      for (const [column, type] of list) {
        if (column === SYNCED || column === DELETED) continue;
        const declared = column === FIVETRAN_ID && state.keyless;
        state.columns.set(column, { name: column, type, declared, exists: true });
        state.spelling.set(foldCase(column), column);
      }
      this.#tables.set(foldCase(table), state);
    }
  }

  /** Checks definitions now; returns the database work to run in order. */
  #registerDeclarations(tables: TableDefinition[]): (() => Promise<void>)[] {
    if (!Array.isArray(tables)) throw warehouseError('declare() takes an array of table definitions');
    const seen = new Set<string>();
    const parsed = tables.map((definition) => {
      if (definition === null || typeof definition !== 'object') {
        throw warehouseError('a table definition must be an object');
      }
      const table = checkName('table', definition.table);
      if (seen.has(foldCase(table))) throw warehouseError(`${tableLabel(table)} is declared twice`);
      seen.add(foldCase(table));
      const keyList = definition.primary_key ?? [];
      if (!Array.isArray(keyList)) throw warehouseError(`${tableLabel(table)}: primary_key must be an array`);
      const keySeen = new Set<string>();
      for (const key of keyList) {
        checkName('column', key, table);
        if (keySeen.has(foldCase(key))) throw warehouseError(`${columnLabel(table, key)}: listed twice in primary_key`);
        keySeen.add(foldCase(key));
      }
      const columnSeen = new Set<string>();
      const columns: [string, string][] = [];
      const spec = definition.columns ?? {};
      if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
        throw warehouseError(`${tableLabel(table)}: columns must be an object`);
      }
      for (const [column, type] of Object.entries(spec)) {
        checkName('column', column, table);
        const folded = foldCase(column);
        if (folded === SYNCED || folded === DELETED || folded === FIVETRAN_ID) {
          throw warehouseError(`${columnLabel(table, column)}: the column name is reserved for the warehouse`);
        }
        if (columnSeen.has(folded)) throw warehouseError(`${columnLabel(table, column)}: declared twice`);
        columnSeen.add(folded);
        columns.push([column, sqlTypeOf(type, table, column)]);
      }
      for (const key of keyList) {
        const folded = foldCase(key);
        if (folded === SYNCED || folded === DELETED || folded === FIVETRAN_ID) {
          throw warehouseError(`${columnLabel(table, key)}: the column name is reserved for the warehouse`);
        }
      }
      return { table, keys: keyList as string[], columns };
    });

    for (const { table, keys } of parsed) {
      const state = this.#tables.get(foldCase(table));
      if (state !== undefined) {
        const current = state.keyless ? [] : state.keys.map(foldCase);
        const wanted = keys.map(foldCase);
        if (current.length !== wanted.length || current.some((key, i) => key !== wanted[i])) {
          throw warehouseError(
            state.exists
              ? `${tableLabel(state.name)} exists in the warehouse with another primary key; delete the warehouse file to start over`
              : state.written
                ? `${tableLabel(state.name)} was written before it was declared with a primary key`
                : `${tableLabel(state.name)} is declared again with another primary key`,
          );
        }
      }
    }

    // Every definition is valid: register them.
    return parsed.map(({ table, keys, columns }) => {
      const folded = foldCase(table);
      let state = this.#tables.get(folded);
      if (state === undefined) {
        state = newTableState(table, keys, false);
        this.#tables.set(folded, state);
      }
      state.declared = true;
      const target = state;
      const declared: [string, string][] = [];
      for (const [column, type] of columns) {
        const f = foldCase(column);
        let name = target.spelling.get(f);
        if (name === undefined) {
          name = column;
          target.spelling.set(f, name);
        }
        declared.push([name, type]);
      }
      return () => this.#applyDeclaration(target, declared);
    });
  }

  async #applyDeclaration(state: TableState, declared: [string, string][]): Promise<void> {
    const add: string[] = [];
    const alter: string[] = [];
    for (const [name, type] of declared) {
      const column = state.columns.get(name);
      if (column === undefined || !column.exists) add.push(name);
      else if (column.type !== type) alter.push(name);
    }
    const types = new Map(declared);
    const commit = (): void => {
      for (const [name, type] of declared) {
        const column = state.columns.get(name);
        if (column === undefined) state.columns.set(name, { name, type, declared: true, exists: state.exists });
        else Object.assign(column, { type, declared: true, exists: column.exists || state.exists });
      }
    };
    if (state.exists) {
      if (add.length + alter.length === 0) {
        commit();
        return;
      }
      await this.#execute(this.#alterSql(state, types, add, alter));
      commit();
      this.#schemaChanges += add.length + alter.length;
      return;
    }
    commit();
    // Created now when every key column has a type, else on first write.
    const columns = [...state.columns.values()];
    if (columns.every((column) => column.type !== undefined)) {
      await this.#execute([this.#createSql(state.name, this.#finalColumns(state, new Map()), state.keys)]);
      for (const column of columns) column.exists = true;
      state.exists = true;
      this.#schemaChanges++;
    }
  }

  /** Every column of the table once `types` are applied, in table order. */
  #finalColumns(state: TableState, types: Map<string, string>): [string, string][] {
    const result: [string, string][] = [];
    for (const column of state.columns.values()) {
      const type = types.get(column.name) ?? column.type;
      if (type !== undefined) result.push([column.name, type]);
    }
    for (const [name, type] of types) if (!state.columns.has(name)) result.push([name, type]);
    return result;
  }

  #createSql(table: string, columns: [string, string][], keys: string[]): string {
    const defs = columns.map(([name, type]) => `${quoteIdent(name)} ${type}`);
    defs.push(`${quoteIdent(SYNCED)} TIMESTAMPTZ`, `${quoteIdent(DELETED)} BOOLEAN DEFAULT false`);
    defs.push(`PRIMARY KEY (${keys.map(quoteIdent).join(', ')})`);
    return `CREATE TABLE ${tableRef(table)} (${defs.join(', ')})`;
  }

  /** Adds and retypes columns; a retyped key column needs the table rebuilt. */
  #alterSql(state: TableState, types: Map<string, string>, add: string[], alter: string[]): string[] {
    const ref = tableRef(state.name);
    if (alter.some((name) => state.keys.includes(name))) return this.#rebuildSql(state, types);
    return [
      ...add.map((name) => `ALTER TABLE ${ref} ADD COLUMN ${quoteIdent(name)} ${types.get(name)}`),
      ...alter.map((name) => `ALTER TABLE ${ref} ALTER COLUMN ${quoteIdent(name)} SET DATA TYPE ${types.get(name)}`),
    ];
  }

  /** DuckDB cannot retype an indexed column: copy into a new table instead. */
  #rebuildSql(state: TableState, types: Map<string, string>): string[] {
    const columns = this.#finalColumns(state, types);
    const temporary = `__connector_auth_rebuild_${process.pid}_${Date.now()}`;
    const existing = columns.filter(([name]) => state.columns.get(name)?.exists === true);
    const targets = [...existing.map(([name]) => quoteIdent(name)), quoteIdent(SYNCED), quoteIdent(DELETED)];
    const sources = [
      ...existing.map(([name, type]) => `CAST(${quoteIdent(name)} AS ${type})`),
      quoteIdent(SYNCED),
      quoteIdent(DELETED),
    ];
    return [
      this.#createSql(temporary, columns, state.keys),
      `INSERT INTO ${tableRef(temporary)} (${targets.join(', ')}) SELECT ${sources.join(', ')} FROM ${tableRef(state.name)}`,
      `DROP TABLE ${tableRef(state.name)}`,
      `ALTER TABLE ${tableRef(temporary)} RENAME TO ${quoteIdent(state.name)}`,
    ];
  }

  /**
   * The schema a run needs. Counts changes as if its rows were written one at
   * a time: creating the table (with the first row's columns), each column
   * first seen later, each widening.
   */
  #plan(state: TableState, run: Run): Plan {
    const create = !state.exists;
    let changes = create ? 1 : 0;
    const types = new Map<string, string>();
    const present: string[] = [];
    for (const [name, values] of run.columns) {
      present.push(name);
      const n = values.length;
      let i = 0;
      while (i < n && (values[i] === undefined || values[i] === null)) i++;
      if (i === n) continue;
      const column = state.columns.get(name);
      let type: string;
      let widenable: boolean;
      if (column !== undefined && column.type !== undefined) {
        type = column.type;
        widenable = !column.declared;
      } else {
        type = naturalType(values[i]);
        widenable = true;
        if (!(create && i === 0)) changes++;
        i++;
      }
      if (widenable && type !== 'VARCHAR') {
        for (; i < n; i++) {
          const value = values[i];
          if (value === undefined || value === null) continue;
          const wider = widen(type, value);
          if (wider !== type) {
            type = wider;
            changes++;
          }
        }
      }
      types.set(name, type);
    }
    return { create, changes, types, present };
  }

  /** The DDL a plan needs. */
  #planSql(state: TableState, plan: Plan): string[] {
    if (plan.create) return [this.#createSql(state.name, this.#finalColumns(state, plan.types), state.keys)];
    const add: string[] = [];
    const alter: string[] = [];
    for (const [name, type] of plan.types) {
      const column = state.columns.get(name);
      if (column === undefined || !column.exists) add.push(name);
      else if (column.type !== type) alter.push(name);
    }
    return add.length + alter.length > 0 ? this.#alterSql(state, plan.types, add, alter) : [];
  }

  #commitPlan(state: TableState, plan: Plan): void {
    for (const [name, type] of plan.types) {
      const column = state.columns.get(name);
      if (column === undefined) state.columns.set(name, { name, type, declared: false, exists: true });
      else Object.assign(column, { type, exists: true });
    }
    if (plan.create) {
      for (const column of state.columns.values()) if (column.type !== undefined) column.exists = true;
      state.exists = true;
    }
    this.#schemaChanges += plan.changes;
  }

  // -------------------------------------------------------------------------
  // Staging

  /** Converts one column's values for staging; `lenient` never throws (for keys of deletes). */
  /**
   * Converts one column's values for staging. `source` is the run's column
   * (shorter than the run when its last operations lack it); `lenient` never
   * throws and casts with TRY_CAST (keys of deletes: a key that cannot exist
   * matches nothing).
   */
  #stageColumn(state: TableState, name: string, target: string, source: unknown[], lenient: boolean): StagedColumn {
    const n = source.length;
    const fail = (message: string): never => {
      throw warehouseError(`${columnLabel(state.name, name)}: ${message}`);
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
      const values = convert((value) => this.#toText(value, () => null));
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
    const asText = (value: unknown): string => this.#toText(value, fail) as string;

    switch (categoryOf(target)) {
      case 'bool':
        if (booleans === nonNull) return staged('BOOLEAN', source, identity, false);
        break;
      case 'int':
        if (numbers > 0 && !integers) {
          // DuckDB would round a fraction into an integer column.
          for (const value of source) {
            if (typeof value === 'number' && !Number.isInteger(value)) fail(`a non-integer number cannot be stored as ${target}`);
          }
          fail(`a number out of range cannot be stored as ${target}`);
        }
        if (numbers === nonNull) {
          // Exact: integers below 2^63 in magnitude convert from DOUBLE as they are.
          return staged('DOUBLE', source, castExpr(target), target !== 'BIGINT' && target !== 'HUGEINT');
        }
        if (numbers + bigints === nonNull && int64) {
          const values = convert((value) => (typeof value === 'bigint' ? value : BigInt(value as number)));
          return staged('BIGINT', values, target === 'BIGINT' ? identity : castExpr(target), target !== 'BIGINT' && target !== 'HUGEINT');
        }
        return staged(
          'VARCHAR',
          convert((value) => (typeof value === 'number' ? BigInt(value).toString() : asText(value))),
          castExpr(target),
          true,
        );
      case 'float':
        if (numbers === nonNull) {
          return target === 'DOUBLE' ? staged('DOUBLE', source, identity, false) : staged('DOUBLE', source, castExpr(target), true);
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
          return staged('DOUBLE', values, target === 'TIMESTAMP' ? epoch : (ref) => `CAST(${epoch(ref)} AS ${target})`, false);
        }
        break;
      case 'blob': {
        const Blob = this.#api.DuckDBBlobValue;
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
        return staged('VARCHAR', convert((value) => this.#toJsonText(value)), castExpr('JSON'), false);
      default:
        break;
    }
    return staged('VARCHAR', strings === nonNull ? source : convert(asText), castExpr(target), true);
  }

  #toText(value: unknown, fail: (message: string) => null): string | null {
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
        if (value instanceof Date) return isValidDate(value) ? value.toISOString() : fail('an invalid Date cannot be stored');
        if (value instanceof Uint8Array) return new this.#api.DuckDBBlobValue(value).toString();
        return fail(`a ${describeType(value)} value cannot be stored`);
    }
  }

  #toJsonText(value: unknown): string {
    if (value instanceof JsonText) return value.text;
    if (typeof value === 'string') return isJsonText(value) ? value : JSON.stringify(value);
    if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
    if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
    if (value instanceof Date) return JSON.stringify(isValidDate(value) ? value.toISOString() : null);
    if (value instanceof Uint8Array) return JSON.stringify(base64(value));
    return 'null';
  }

  /**
   * Writes the staged columns (plus optional presence masks and a sequence
   * number) into the TEMP staging table as DuckDB data chunks. A run's
   * statements end by recreating the table empty (a DELETE would keep its
   * memory), so a steady stream of batches stages without a round trip.
   * Returns the statement that checks every cast that can fail (DuckDB's
   * error() aborts the transaction; the message carries only column indexes),
   * or undefined.
   */
  async #loadStage(
    columns: StagedColumn[],
    n: number,
    masks: boolean[][] | undefined,
    sequence: boolean,
  ): Promise<string | undefined> {
    const api = this.#api;
    const typeOf = {
      DOUBLE: api.DOUBLE,
      VARCHAR: api.VARCHAR,
      BOOLEAN: api.BOOLEAN,
      BIGINT: api.BIGINT,
      BLOB: api.BLOB,
      INTEGER: api.INTEGER,
    } as const;
    const stageTypes: DuckDBApi.DuckDBType[] = [];
    const defs: string[] = [];
    const sources: unknown[][] = [];
    columns.forEach((column, i) => {
      defs.push(`c${i} ${column.stageType}`);
      stageTypes.push(typeOf[column.stageType]);
      sources.push(column.values);
    });
    masks?.forEach((mask, i) => {
      defs.push(`p${i} BOOLEAN`);
      stageTypes.push(api.BOOLEAN);
      sources.push(mask);
    });
    if (sequence) {
      defs.push('__seq INTEGER');
      stageTypes.push(api.INTEGER);
    }
    const layout = defs.join(', ');
    if (this.#stage !== layout) {
      this.#stage = undefined;
      await this.#conn.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdent(STAGE)} (${layout})`);
      this.#stage = layout;
    }
    // Resolves without a round trip: the appender is created synchronously.
    const appender = await this.#conn.createAppender(STAGE, 'main', 'temp');
    try {
      const chunkSize = api.DuckDBVector.standardSize();
      for (let offset = 0; offset < n; offset += chunkSize) {
        const size = Math.min(chunkSize, n - offset);
        const chunk = api.DuckDBDataChunk.create(stageTypes, size);
        for (let c = 0; c < sources.length; c++) {
          const vector = chunk.getColumnVector(c) as unknown as { setItem(i: number, v: unknown): void; flush(): void };
          const source = sources[c] as unknown[];
          for (let j = 0; j < size; j++) vector.setItem(j, source[offset + j] ?? null);
          vector.flush();
        }
        if (sequence) {
          const vector = chunk.getColumnVector(sources.length) as unknown as {
            setItem(i: number, v: number): void;
            flush(): void;
          };
          for (let j = 0; j < size; j++) vector.setItem(j, offset + j);
          vector.flush();
        }
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }

    const checked: string[] = [];
    const failures: string[] = [];
    columns.forEach((column, i) => {
      if (!column.check) return;
      const k = checked.length;
      checked.push(`count_if(c${i} IS NOT NULL AND TRY_CAST(c${i} AS ${column.target}) IS NULL) AS b${k}`);
      failures.push(`WHEN b${k} > 0 THEN error('${CHECK_MARK}:${i}:' || b${k})`);
    });
    if (checked.length === 0) return undefined;
    return `SELECT CASE ${failures.join(' ')} END FROM (SELECT ${checked.join(', ')} FROM ${STAGE_REF})`;
  }

  /** Statements that leave the staging table empty, its memory freed. */
  #emptyStage(): string[] {
    return [`CREATE OR REPLACE TEMP TABLE ${quoteIdent(STAGE)} (${this.#stage})`];
  }

  /** Runs a run's statements; a failed cast check becomes an error naming the column. */
  async #executeRun(state: TableState, staged: StagedColumn[], body: string[], after: string[]): Promise<void> {
    try {
      await this.#execute(body, after);
    } catch (error) {
      const match = error instanceof Error ? new RegExp(`${CHECK_MARK}:(\\d+):(\\d+)`).exec(error.message) : null;
      const column = match === null ? undefined : staged[Number(match[1])];
      if (match !== null && column !== undefined) {
        throw warehouseError(
          `${columnLabel(state.name, column.name)}: ${match[2]} value(s) cannot be stored as ${column.target}`,
        );
      }
      throw error;
    }
  }

  // -------------------------------------------------------------------------
  // Runs

  async #writeUpserts(state: TableState, run: Run): Promise<void> {
    const plan = this.#plan(state, run);
    const staged = [...plan.types].map(([name, type]) =>
      this.#stageColumn(state, name, type, run.columns.get(name) as unknown[], false),
    );
    const check = await this.#loadStage(staged, run.n, undefined, true);
    const final = this.#finalColumns(state, plan.types);
    const index = new Map(staged.map((column, i) => [column.name, i]));
    const targets = final.map(([name]) => quoteIdent(name));
    const values = final.map(([name]) => (index.has(name) ? `s.c${index.get(name)}` : 'NULL'));
    const partition = state.keys.map((key) => `s.c${index.get(key)}`).join(', ');
    const select = staged.map((column, i) => `${column.expr(`c${i}`)} AS c${i}`);
    const insert =
      `INSERT OR REPLACE INTO ${tableRef(state.name)} (${targets.join(', ')}, ${quoteIdent(SYNCED)}, ${quoteIdent(DELETED)}) ` +
      `SELECT ${values.join(', ')}, now(), false FROM (SELECT ${select.join(', ')}, __seq FROM ${STAGE_REF}) AS s ` +
      `QUALIFY row_number() OVER (PARTITION BY ${partition} ORDER BY s.__seq DESC) = 1`;
    const body = [...(check === undefined ? [] : [check]), ...this.#planSql(state, plan), insert];
    await this.#executeRun(state, staged, body, this.#emptyStage());
    this.#commitPlan(state, plan);
  }

  async #writeUpdates(state: TableState, run: Run): Promise<void> {
    const plan = this.#plan(state, run);
    const column = (name: string): unknown[] => run.columns.get(name) as unknown[];
    const keys = new Set(state.keys);
    const staged: StagedColumn[] = [];
    for (const key of state.keys) {
      staged.push(this.#stageColumn(state, key, plan.types.get(key) as string, column(key), false));
    }
    for (const name of plan.present) {
      if (keys.has(name)) continue;
      // A column given only as null is set to null where it exists; a column
      // that does not exist yet is NULL already.
      const existing = state.columns.get(name);
      const type = plan.types.get(name) ?? (existing?.exists ? existing.type : undefined);
      if (type !== undefined) staged.push(this.#stageColumn(state, name, type, column(name), false));
    }
    const data = staged.slice(state.keys.length);
    const masks = data.map((staging) => {
      const values = column(staging.name);
      const mask: boolean[] = new Array(run.n);
      for (let i = 0; i < run.n; i++) mask[i] = values[i] !== undefined;
      return mask;
    });
    const check = await this.#loadStage(staged, run.n, masks, true);

    // Merge the run per key first: each column takes its last given value.
    const k = state.keys.length;
    const inner = [
      ...staged.map((staging, i) => `${staging.expr(`c${i}`)} AS c${i}`),
      ...data.map((_, j) => `p${j}`),
      '__seq',
    ];
    const groupKeys = state.keys.map((_, i) => `c${i}`);
    const aggregates = data.map(
      (_, j) => `arg_max_null(c${k + j}, __seq) FILTER (WHERE p${j}) AS c${k + j}, coalesce(bool_or(p${j}), false) AS p${j}`,
    );
    const merge =
      `CREATE OR REPLACE TEMP TABLE ${quoteIdent(MERGED)} AS SELECT ${[...groupKeys, ...aggregates].join(', ')} ` +
      `FROM (SELECT ${inner.join(', ')} FROM ${STAGE_REF}) GROUP BY ${groupKeys.join(', ')}`;
    const target = tableRef(state.name);
    const match = (alias: string): string =>
      state.keys.map((key, i) => `${alias}.${quoteIdent(key)} = m.c${i}`).join(' AND ');
    const sets = data.map(
      (staging, j) =>
        `${quoteIdent(staging.name)} = CASE WHEN m.p${j} THEN m.c${k + j} ELSE tgt.${quoteIdent(staging.name)} END`,
    );
    sets.push(`${quoteIdent(SYNCED)} = now()`, `${quoteIdent(DELETED)} = false`);
    const insertTargets = [...staged.map((staging) => quoteIdent(staging.name)), quoteIdent(SYNCED), quoteIdent(DELETED)];
    const insertValues = [...staged.map((_, i) => `m.c${i}`), 'now()', 'false'];
    const body = [
      ...(check === undefined ? [] : [check]),
      merge,
      ...this.#planSql(state, plan),
      ...(plan.create
        ? []
        : [`UPDATE ${target} AS tgt SET ${sets.join(', ')} FROM ${MERGED_REF} AS m WHERE ${match('tgt')}`]),
      `INSERT INTO ${target} (${insertTargets.join(', ')}) SELECT ${insertValues.join(', ')} FROM ${MERGED_REF} AS m ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${target} AS x WHERE ${match('x')})`,
    ];
    await this.#executeRun(state, staged, body, [`DROP TABLE ${MERGED_REF}`, ...this.#emptyStage()]);
    this.#commitPlan(state, plan);
  }

  async #writeDeletes(state: TableState, run: Run): Promise<void> {
    if (!state.exists) return;
    const staged = state.keys.map((key) =>
      this.#stageColumn(state, key, state.columns.get(key)?.type ?? 'VARCHAR', run.columns.get(key) ?? [], true),
    );
    await this.#loadStage(staged, run.n, undefined, false);
    const select = staged.map((column, i) => `${column.expr(`c${i}`)} AS c${i}`);
    const match = state.keys.map((key, i) => `tgt.${quoteIdent(key)} = m.c${i}`).join(' AND ');
    const update =
      `UPDATE ${tableRef(state.name)} AS tgt SET ${quoteIdent(DELETED)} = true, ${quoteIdent(SYNCED)} = now() ` +
      `FROM (SELECT DISTINCT ${select.join(', ')} FROM ${STAGE_REF}) AS m WHERE ${match}`;
    await this.#execute([update], this.#emptyStage());
  }

  async #writeTruncate(state: TableState): Promise<void> {
    if (!state.exists) return;
    await this.#execute([
      `UPDATE ${tableRef(state.name)} SET ${quoteIdent(DELETED)} = true, ${quoteIdent(SYNCED)} = now() ` +
        `WHERE ${quoteIdent(DELETED)} IS NOT TRUE`,
    ]);
  }
}
