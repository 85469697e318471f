/**
 * The local warehouse: a batched writer of a connector's operations into a
 * DuckDB file, with the semantics of the Python connector SDK's local tester.
 *
 * Every table lives in schema `default_schema` (also readable as `tester`: tester-views.ts) and carries its
 * data columns plus `_fivetran_synced` (TIMESTAMPTZ, time of the write) and `_fivetran_deleted` (BOOLEAN).
 * A table without a primary key is keyed by `_fivetran_id`, the sha1 hex of the canonical JSON of the row's
 * non-null data (sorted keys); update and delete on such a table find the row by the `_fivetran_id` they are
 * given, else by the one computed from the values given (so a delete names the whole row).
 *
 * Semantics: upsert replaces the whole row (last write wins, also within a batch); update merges the given
 * columns (a missing row is inserted; a soft-deleted row is live again); delete sets `_fivetran_deleted`;
 * truncate marks every live row deleted. Operations on a table apply in issue order.
 *
 * How a write travels:
 * - `upsert`/`update`/`delete`/`truncate` copy the row and append it to the table's pending operations
 *   (consecutive operations of one kind form a run) and resolve at once. When a table holds `batchSize`
 *   operations, its batch is written while the connector goes on producing the next one; the call that
 *   fills a batch waits only for the batch before it (backpressure: one batch in flight).
 * - All database work goes through one promise chain, so batches, declarations and reads take effect in
 *   the order they were issued.
 * - Upserts into a table that holds none of their keys (a first sync) go as data chunks into
 *   one of two TEMP tables, each inserted by one statement per row group while the connector
 *   fills the other (append-groups.ts); a refused group, and every other run, is staged:
 *   converted column by column into a TEMP table, its casts checked with TRY_CAST so a bad value
 *   is reported by table and column, then applied in one transaction with the schema changes.
 * - Columns are typed by declaration when declared, else inferred from their first non-null value and
 *   widened when a later value does not fit. Schema changes are counted as if the rows were written one
 *   at a time, so the count does not depend on the batch size.
 *
 * Errors of the rows a connector writes are plain `Error`s naming the table
 * and column, never a row value (values may be secrets); DuckDB's own failures
 * keep its message, redacted, with a code and a hint (warehouse-errors.ts).
 *
 * `@duckdb/node-api` is loaded by `open()` (or `preloadDuckDB()`) only. This
 * class owns the lifecycle, the buffering entry points and the promise chain;
 * the rest lives beside it (README.md).
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { BatchWriter, bufferOperation, type UpsertPaths } from './write/index.js';
import { registerDeclarations, type Declaration } from './schema/index.js';
import {
  type Api,
  type Connection,
  type Instance,
  FIVETRAN_ID,
  checkName,
  foldCase,
  newTableState,
  type Op,
  type TableState,
  sanitize,
  tableLabel,
  warehouseError,
  type Row,
  type TableDefinition,
} from './base/index.js';
import { keepExistingTables, openDuckDb, readRows, refreshLegacyViews, type OpenedDuckDb } from './engine/index.js';

const DEFAULT_BATCH_SIZE = 50_000;

const RESOLVED: Promise<void> = Promise.resolve();
const noop = (): void => {};

/** Paths opened by this process: DuckDB must not attach one file twice. */
const openPaths = new Set<string>();

export class Warehouse {
  readonly #api: Api;
  readonly #instance: Instance;
  readonly #conn: Connection;
  /** The tester views need making again at close, whatever this session writes. */
  readonly #viewsStale: boolean;
  /** The catalogue as opened, kept for the next session if this one changes none of it. */
  readonly #catalogue: OpenedDuckDb['existingTableRows'];
  readonly #pathKey: string;
  readonly #batchSize: number;
  /** by case-folded name */
  readonly #tables: Map<string, TableState>;
  /** table names as written by the connector → state (cache) */
  readonly #byRawName = new Map<string, TableState>();
  readonly #writer: BatchWriter;
  #chain: Promise<unknown> = RESOLVED;
  /** the last batch handed to the chain because it was full */
  #lastWrite: Promise<void> = RESOLVED;
  #failure: Error | undefined;
  #closing = false;

  private constructor(opened: OpenedDuckDb, pathKey: string, batchSize: number) {
    ({ api: this.#api, instance: this.#instance, conn: this.#conn, tables: this.#tables } = opened);
    this.#viewsStale = opened.viewsStale;
    this.#catalogue = opened.existingTableRows;
    this.#pathKey = pathKey;
    this.#batchSize = batchSize;
    this.#writer = new BatchWriter(opened.api, opened.conn, opened.columnOrder);
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
      return new Warehouse(await openDuckDb(path), pathKey, batchSize);
    } catch (error) {
      openPaths.delete(pathKey);
      throw error;
    }
  }

  /**
   * open() for a file that exists (with no write-ahead log to replay), so a run can open it while
   * it loads and probes: opening and closing without a write leave the file byte for byte as it
   * was. Undefined otherwise: a new file is created by open(), after the probe.
   */
  static openExisting(path: string, options: { batchSize?: number } = {}): Promise<Warehouse> | undefined {
    if (typeof path !== 'string' || !existsSync(path) || existsSync(`${path}.wal`)) return undefined;
    return Warehouse.open(path, options);
  }

  /** Schema changes so far: tables created, columns added, columns widened. */
  get schemaChanges(): number {
    return this.#writer.schemaChanges;
  }

  /** Upserts written so far by each path, appended or merged (written once flush() resolved). */
  get upsertPaths(): UpsertPaths {
    return this.#writer.upsertPaths;
  }

  declare(tables: TableDefinition[]): Promise<void> {
    let declarations: Declaration[];
    try {
      this.#assertUsable();
      declarations = registerDeclarations(this.#tables, tables);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      for (const { state, columns } of declarations) await this.#writer.applyDeclaration(state, columns);
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
    const changed = this.#viewsStale || this.schemaChanges > 0;
    if (failure === undefined && this.#failure === undefined && changed)
      await refreshLegacyViews(this.#conn).catch(
        (error: unknown) => (failure = sanitize(error, 'refreshing the tester views')),
      );
    try {
      this.#conn.closeSync();
      this.#instance.closeSync();
    } finally {
      openPaths.delete(this.#pathKey);
    }
    failure ??= this.#failure;
    if (failure === undefined && !changed && this.#catalogue) keepExistingTables(this.#pathKey, this.#catalogue);
    if (failure !== undefined) throw failure;
  }

  /** For tests and summaries: the rows of a table, ordered by primary key. */
  async read(table: string): Promise<Row[]> {
    checkName('table', table);
    await this.flush();
    return this.#enqueue(async () => {
      const state = this.#tables.get(foldCase(table));
      if (state === undefined || !state.exists) return [];
      return readRows(this.#api, this.#conn, state);
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
      bufferOperation(state, kind, row);
    } catch (error) {
      return Promise.reject(error);
    }
    state.pendingCount++;
    if (state.pendingCount < this.#writer.batchSize(state, this.#batchSize)) return RESOLVED;
    // The batch is full: written while the caller builds the next one, which waits only for an
    // earlier batch (one in flight). A failure reaches it through that promise, or #failure.
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
    return this.#enqueue(() => this.#writer.writeOps(state, ops), true);
  }

  async #flushAll(): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const state of this.#tables.values()) {
      if (state.pendingCount > 0) writes.push(this.#scheduleTable(state));
    }
    writes.push(this.#enqueue(() => this.#writer.commit(), true));
    await Promise.all(writes);
  }
}
