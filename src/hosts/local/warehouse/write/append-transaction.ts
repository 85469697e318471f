/**
 * The transaction that directly appended upsert runs go into (direct-append.ts). It stays open
 * across runs, committed once it holds a row group's worth of rows (122,880: DuckDB then writes
 * whole row groups to the file rather than to its log) or when anything else is written, declared,
 * read or flushed. So runs can be small (their values do not outlive a few thousand rows in the
 * JavaScript heap, where holding 50,000 rows cost more in garbage collection than appending them)
 * while commits stay few.
 *
 * When the table refuses a run (a key it holds already, or one given twice), the transaction is
 * rolled back, and the rows it held are merged from the chunks kept for that: appended to a TEMP
 * table of the table's shape, then INSERT OR REPLACE of the last row per key, in issue order. The
 * refused run itself is merged by the batch writer after that.
 */
import {
  type Connection,
  type DataChunk,
  quoteIdent,
  tableRef,
  type TableState,
  sanitize,
  tableLabel,
} from '../base/index.js';

/** DuckDB's row group size: a commit of at least this many appended rows writes them to the file directly. */
const COMMIT_ROWS = 122_880;
const REPLAY = '__connector_auth_replay';

export class AppendTransaction {
  readonly #conn: Connection;
  #open: { state: TableState; chunks: DataChunk[]; rows: number } | undefined;
  /** a commit of a full transaction, left running while the connector produces the next run */
  #committing: Promise<void> | undefined;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** The table whose rows the open transaction holds, if one is open. */
  get table(): TableState | undefined {
    return this.#open?.state;
  }

  /**
   * Runs `append` (which appends one run and returns its chunks) in the open transaction, opening
   * it first. False when the table refused the run: the transaction was rolled back and the rows
   * it held before this run were merged.
   */
  async append(state: TableState, rows: number, append: () => Promise<DataChunk[]>): Promise<boolean> {
    if (this.#open !== undefined && this.#open.state !== state) await this.commit();
    if (this.#open === undefined) {
      await this.#settled();
      await this.#conn.run('BEGIN TRANSACTION');
      this.#open = { state, chunks: [], rows: 0 };
    }
    const open = this.#open;
    let chunks: DataChunk[];
    try {
      chunks = await append();
    } catch {
      this.#open = undefined;
      await this.#rollback();
      if (open.chunks.length > 0) await this.#replay(state, open.chunks);
      return false;
    }
    open.chunks.push(...chunks);
    open.rows += rows;
    if (open.rows >= COMMIT_ROWS) {
      // Not awaited here: the connector goes on producing rows while DuckDB commits these (50–80
      // ms for a row group), and the next statement waits for it (#settled). A failed commit
      // fails that statement, or the flush.
      this.#committing = this.#commitOpen();
      this.#committing.catch(() => {});
    }
    return true;
  }

  /** Commits the open transaction, if any, and waits for a commit still running. */
  async commit(): Promise<void> {
    await this.#settled();
    await this.#commitOpen();
  }

  async #commitOpen(): Promise<void> {
    if (this.#open === undefined) return;
    // Only the name outlives the commit: the transaction's kept chunks (a row group's values, 50-60
    // MB) are let go before it, or the commit (which runs while the next runs are buffered) holds
    // them; 1M rows then peaked at 341 MB instead of 280.
    const table = this.#open.state.name;
    this.#open = undefined;
    try {
      await this.#conn.run('COMMIT');
    } catch (error) {
      await this.#rollback();
      // The transaction holds one table's upserts: the failure names it, as a merge's would.
      throw sanitize(error, `writing upserts to ${tableLabel(table)}`);
    }
  }

  async #settled(): Promise<void> {
    const committing = this.#committing;
    this.#committing = undefined;
    if (committing !== undefined) await committing;
  }

  /** After a failure elsewhere: the open transaction is given up. */
  async abandon(): Promise<void> {
    await this.#settled().catch(() => {});
    if (this.#open === undefined) return;
    this.#open = undefined;
    await this.#rollback();
  }

  async #rollback(): Promise<void> {
    try {
      await this.#conn.run('ROLLBACK');
    } catch {
      // the failure ended the transaction already
    }
  }

  /** Merges rows that were appended in a rolled-back transaction: the last per key wins. */
  async #replay(state: TableState, chunks: DataChunk[]): Promise<void> {
    const replay = `temp.main.${quoteIdent(REPLAY)}`;
    const keys = state.keys.map(quoteIdent).join(', ');
    await this.#conn.run(
      `BEGIN TRANSACTION; CREATE OR REPLACE TEMP TABLE ${quoteIdent(REPLAY)} AS SELECT * FROM ${tableRef(state.name)} LIMIT 0`,
    );
    try {
      const appender = await this.#conn.createAppender(REPLAY, 'main', 'temp');
      try {
        for (const chunk of chunks) appender.appendDataChunk(chunk);
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
      // rowid is the order the rows were appended in, which is the order they were issued in.
      await this.#conn.run(
        `INSERT OR REPLACE INTO ${tableRef(state.name)} SELECT * FROM ${replay} QUALIFY row_number() OVER (PARTITION BY ${keys} ORDER BY rowid DESC) = 1; ` +
          `DROP TABLE ${replay}; COMMIT`,
      );
    } catch (error) {
      await this.#rollback();
      throw error;
    }
  }
}
