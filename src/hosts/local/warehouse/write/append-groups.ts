/**
 * Where directly appended upsert runs (direct-append.ts) go: two TEMP tables of the table's shape,
 * filled in turn by DuckDB's appender, each inserted into the table by one `INSERT … SELECT` once
 * it holds a row group's worth of rows (122,880), while the other one fills.
 *
 * Why not the table's own appender in a transaction (how it was done before): the appender's flush
 * into a table with a primary key, and the COMMIT after it, are most of DuckDB's work, and the
 * appender's flush runs synchronously on the JavaScript thread, so the connector stopped while
 * DuckDB checked keys and wrote row groups. Appending into a TEMP table without a key is cheap; the
 * INSERT runs on a DuckDB worker thread while the connector produces the next group. Appending into
 * the other table while the INSERT runs takes no lock: the appender buffers the rows itself and
 * writes them to its table only when flushed, which waits for the INSERT first.
 *
 * An INSERT is one statement: when the table refuses it (a key it holds already, or one the group
 * gives twice) nothing of the group was written, and the group is merged instead: a MERGE of the
 * last row per key, in issue order (merge-sql.ts), and the table's later runs are merged too (`merges`).
 * Groups are written in the order they were filled, so later rows still replace earlier ones.
 */
import {
  type Appender,
  type Connection,
  type DataChunk,
  type DuckDBType,
  quoteIdent,
  tableRef,
  type TableState,
  sanitize,
  tableLabel,
} from '../base/index.js';
import { groupTableStatement, mergeGroupStatement } from './merge-sql.js';

/** DuckDB's row group size: an INSERT of at least this many rows writes whole row groups to the file. */
const GROUP_ROWS = 122_880;
/**
 * The first group appended to a table found in the file is merged at once when it is this small.
 * A re-sync of rows the table holds (an author's every run of `debug`) has its INSERT refused, and
 * the refused statement cost as much as the merge after it (2 MiB of `debug`'s peak); merging this
 * few new rows costs next to nothing more than inserting them. Only the first group: a load of new
 * rows with a checkpoint every thousand rows, all merged, took 1.3x the time (tried).
 */
const MERGED_AT_ONCE = 2_048;
const GROUPS = ['__connector_auth_group_0', '__connector_auth_group_1'] as const;

interface OpenGroups {
  state: TableState;
  /** the table's column names in order, as the group tables were made */
  columns: string[];
  /** the same names joined, to compare with a later run's */
  layout: string;
  /** the column types, in the table's order */
  types: DuckDBType[];
  /** the group being filled: its index in GROUPS, its appender, its rows */
  filling: number;
  appender: Appender;
  rows: number;
  /** the second group's table is made in this shape: only once the first one is full (most runs are smaller) */
  second: boolean;
}

export class AppendGroups {
  readonly #conn: Connection;
  #open: OpenGroups | undefined;
  /** the INSERT of the last full group (and its merge when refused), left running */
  #inserting: Promise<void> | undefined;
  /** Rows of the groups written so far: inserted as appended, or merged (refused, or merged at once). */
  readonly rows = { inserted: 0, merged: 0 };

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Appends one run's rows: `build` makes its chunks given the table's column types, in the order
   * `columns` names them. A full group is handed to an INSERT that is not waited for; the next full
   * group waits for it.
   */
  async append(
    state: TableState,
    columns: string[],
    rows: number,
    build: (types: DuckDBType[]) => DataChunk[],
  ): Promise<void> {
    const layout = columns.join('\0');
    if (this.#open !== undefined && (this.#open.state !== state || this.#open.layout !== layout)) {
      await this.commit();
    }
    const open = this.#open ?? (await this.#begin(state, columns, layout));
    for (const chunk of build(open.types)) open.appender.appendDataChunk(chunk);
    open.rows += rows;
    if (open.rows >= GROUP_ROWS) await this.#insertFilled(open, false);
  }

  /** Writes what the groups hold and waits for it: before anything else reads or writes. */
  async commit(): Promise<void> {
    try {
      await this.#settled();
      const open = this.#open;
      if (open === undefined) return;
      if (open.rows > 0) await this.#insertFilled(open, true);
      else open.appender.closeSync();
      this.#open = undefined;
      await this.#settled();
    } catch (error) {
      await this.abandon();
      throw error;
    }
  }

  /** After a failure elsewhere: what the groups hold is given up. */
  async abandon(): Promise<void> {
    await this.#settled().catch(() => {});
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return;
    try {
      open.appender.closeSync();
    } catch {
      // closed already, or its rows refused: they are dropped with its table
    }
    await this.#conn
      .run(GROUPS.map((group) => `DROP TABLE IF EXISTS temp.main.${quoteIdent(group)}`).join('; '))
      .catch(() => {});
  }

  /** Makes the first group's table from `columns` (so the appender takes them in that order) and its appender. */
  async #begin(state: TableState, columns: string[], layout: string): Promise<OpenGroups> {
    await this.#settled();
    await this.#conn.run(groupTableStatement(state, columns, GROUPS[0]));
    const appender = await this.#conn.createAppender(GROUPS[0], 'main', 'temp');
    const types: DuckDBType[] = [];
    for (let i = 0; i < columns.length; i++) types.push(appender.columnType(i));
    this.#open = { state, columns, layout, types, filling: 0, appender, rows: 0, second: false };
    return this.#open;
  }

  /**
   * Hands the group being filled to an INSERT, after the one before it finished; unless `last`,
   * the other group is filled meanwhile (its appender made before the INSERT starts: making one
   * needs the connection, which the INSERT then holds).
   */
  async #insertFilled(open: OpenGroups, last: boolean): Promise<void> {
    await this.#settled();
    open.appender.flushSync();
    open.appender.closeSync();
    const full = GROUPS[open.filling] as string;
    const rows = open.rows;
    const mergeAtOnce = open.state.reopened && open.rows <= MERGED_AT_ONCE;
    open.state.reopened = false;
    // The last group is left as it is when small: the next run's #begin makes it again anyway.
    const refill = !last || open.rows > MERGED_AT_ONCE;
    if (!last) {
      open.filling = 1 - open.filling;
      open.rows = 0;
      if (!open.second) await this.#conn.run(groupTableStatement(open.state, open.columns, GROUPS[1]));
      open.second = true;
      open.appender = await this.#conn.createAppender(GROUPS[open.filling] as string, 'main', 'temp');
    }
    const inserting = this.#insert(open.state, open.columns, { group: full, rows }, mergeAtOnce, refill);
    // A failure reaches the next statement, which waits for this one (#settled), or the commit.
    inserting.catch(() => {});
    this.#inserting = inserting;
  }

  /** Inserts (or merges) a full group, then makes its table empty again when `refill`. */
  async #insert(
    state: TableState,
    columns: string[],
    full: { group: string; rows: number },
    mergeAtOnce: boolean,
    refill: boolean,
  ): Promise<void> {
    const { group } = full;
    const rows = `temp.main.${quoteIdent(group)}`;
    const table = tableRef(state.name);
    const then = refill ? `; ${groupTableStatement(state, columns, group)}` : '';
    if (!mergeAtOnce) {
      try {
        await this.#conn.run(`INSERT INTO ${table} SELECT * FROM ${rows}${then}`);
        this.rows.inserted += full.rows;
        return;
      } catch {
        // refused: merged below (any other failure fails the merge too, and is reported from there)
      }
      state.merges = true;
    }
    try {
      await this.#conn.run(`${mergeGroupStatement(state, columns, rows)}${then}`);
      this.rows.merged += full.rows;
    } catch (error) {
      // The group holds one table's upserts: the failure names it, as a merge's would.
      throw sanitize(error, `writing upserts to ${tableLabel(state.name)}`);
    }
  }

  async #settled(): Promise<void> {
    const inserting = this.#inserting;
    this.#inserting = undefined;
    if (inserting !== undefined) await inserting;
  }
}
