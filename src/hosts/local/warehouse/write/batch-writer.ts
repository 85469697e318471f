/**
 * The database side of the warehouse: applies declarations and a table's
 * buffered operations to DuckDB, run by run. An upsert run into a table that
 * holds none of its keys is appended and inserted as it is (direct-append.ts,
 * append-groups.ts). Any other run is staged (its values appended into
 * the TEMP staging table), then its cast check, DDL and set-based merge go to
 * DuckDB in one transaction and one round trip, so the connector produces the
 * next batch while this one is written. It also counts schema changes.
 */
import { AppendGroups } from './append-groups.js';
import { type ChunkColumn, buildChunks, directColumns, fittingColumns, physicalColumns } from './direct-append.js';
import {
  type Api,
  type Connection,
  finalColumns,
  type Op,
  type Run,
  type TableState,
  sanitize,
  tableLabel,
} from '../base/index.js';
import { deleteStatement, truncateStatement, updateStatements, upsertStatements } from './merge-sql.js';
import { commitPlan, planRun, type Plan, alterSql, createSql, planSql } from '../schema/index.js';
import { stageColumn, type StagedColumn } from './staged-column.js';
import { MERGED_REF, StagingTable, castCheckError } from './staging-table.js';

/**
 * Operations per batch while a table's upserts are appended directly (two 2,048-row chunks): the
 * fewer rows the JavaScript heap holds, the less garbage collection copies. Against 8,192 rows,
 * 1.16x the rows/s and 0.91x the CPU on 1,000,000 upserts (10 alternated rounds); 2,048 was no
 * better than this.
 */
const DIRECT_BATCH = 4_096;

/** Upserts by the path that wrote them (BatchWriter.upsertPaths). */
export interface UpsertPaths {
  /** appended directly and inserted as they were */
  appended: number;
  /** written by a merge: staged, or in an appended group the table refused */
  merged: number;
}

export class BatchWriter {
  readonly #api: Api;
  readonly #conn: Connection;
  readonly #staging: StagingTable;
  readonly #appending: AppendGroups;
  #schemaChanges = 0;
  /** upserts written through the staging table and a merge, never appended */
  #stagedUpserts = 0;
  /** each table's column order as the appender takes it, valid while no schema changes */
  readonly #order = new WeakMap<TableState, { at: number; names: string[] }>();

  /** `columnOrder`: the tables' column order as the file held them when it was opened (existing-tables.ts). */
  constructor(api: Api, conn: Connection, columnOrder: ReadonlyMap<TableState, string[]> = new Map()) {
    this.#api = api;
    this.#conn = conn;
    this.#staging = new StagingTable(api, conn);
    this.#appending = new AppendGroups(conn);
    for (const [state, names] of columnOrder) this.#order.set(state, { at: 0, names });
  }

  /**
   * How many operations a table buffers before they are written: fewer while its upserts are
   * appended directly (their values then leave the JavaScript heap soon, and the append
   * groups keep DuckDB's statements few), `configured` when they are merged (a merge's fixed
   * cost wants large batches).
   */
  batchSize(state: TableState, configured: number): number {
    return state.merges ? configured : Math.min(configured, DIRECT_BATCH);
  }

  /** Commits what was appended and not yet committed: before anything else reads or writes. */
  commit(): Promise<void> {
    return this.#appending.commit();
  }

  /**
   * Upserts written so far by each path: appended directly and inserted as they were, or merged
   * (staged, or an appended group the table refused). What shows the fast paths are taken.
   */
  get upsertPaths(): UpsertPaths {
    const { inserted, merged } = this.#appending.rows;
    return { appended: inserted, merged: merged + this.#stagedUpserts };
  }

  /** Schema changes so far: tables created, columns added, columns widened. */
  get schemaChanges(): number {
    return this.#schemaChanges;
  }

  /** Writes a table's operations in order; a failure names the table and kind, never a value. */
  async writeOps(state: TableState, ops: Op[]): Promise<void> {
    for (const op of ops) {
      if (op.kind !== 'truncate' && op.n === 0) continue;
      try {
        if (op.kind !== 'upsert') await this.#appending.commit();
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
        await this.#appending.abandon();
        await this.#staging.drop();
        throw sanitize(error, `writing ${op.kind}s to ${tableLabel(state.name)}`);
      }
    }
  }

  /** Applies a registered declaration: adds or retypes columns, or creates the table once its key is typed. */
  async applyDeclaration(state: TableState, declared: [string, string][]): Promise<void> {
    await this.#appending.commit();
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
      await this.#execute(alterSql(state, types, add, alter));
      commit();
      this.#schemaChanges += add.length + alter.length;
      return;
    }
    commit();
    // Created now when every key column has a type, else on first write.
    const columns = [...state.columns.values()];
    if (columns.every((column) => column.type !== undefined)) {
      await this.#execute([createSql(state.name, finalColumns(state, new Map()), state.keys)]);
      for (const column of columns) column.exists = true;
      state.exists = true;
      this.#schemaChanges++;
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

  /** Runs a run's statements; a failed cast check becomes an error naming the column. */
  async #executeRun(state: TableState, staged: StagedColumn[], body: string[], after: string[]): Promise<void> {
    try {
      await this.#execute(body, after);
    } catch (error) {
      throw castCheckError(error, state.name, staged) ?? error;
    }
  }

  async #writeUpserts(state: TableState, run: Run): Promise<void> {
    if (!state.merges && state.exists) {
      const fitting = fittingColumns(this.#api, state, run);
      if (fitting !== undefined) {
        await this.#appendColumns(state, fitting, run.n);
        return;
      }
    }
    let plan = planRun(state, run);
    const staged = [...plan.types].map(([name, type]) =>
      this.#stage(state, name, type, run.columns.get(name) as unknown[]),
    );
    if (!state.merges) {
      if (await this.#appendUpserts(state, plan, staged, run.n)) return;
      // The append path may have applied the run's DDL already: what is left to plan is nothing.
      plan = planRun(state, run);
    }
    await this.#appending.commit();
    const check = await this.#staging.load(staged, run.n, undefined, true);
    const body = [...(check === undefined ? [] : [check]), ...upsertStatements(state, plan, staged)];
    await this.#executeRun(state, staged, body, this.#staging.emptyStatements());
    commitPlan(state, plan);
    this.#schemaChanges += plan.changes;
    this.#stagedUpserts += run.n;
  }

  /**
   * Appends an upsert run into its table's append groups (direct-append.ts, append-groups.ts); the
   * run's DDL is committed first, on its own. False when a value needs a checked cast: the caller
   * then merges the run. A key the table refuses is found when the run's group is inserted, and
   * that group is merged there (and the table's later runs by the caller).
   */
  async #appendUpserts(state: TableState, plan: Plan, staged: StagedColumn[], n: number): Promise<boolean> {
    const given = directColumns(this.#api, staged);
    if (given === undefined) return false;
    const ddl = planSql(state, plan);
    if (ddl.length > 0) {
      await this.#appending.commit();
      await this.#execute(ddl);
    }
    commitPlan(state, plan);
    this.#schemaChanges += plan.changes;
    await this.#appendColumns(state, given, n);
    return true;
  }

  /** Appends a run's columns (direct-append.ts) into the table's append groups. */
  async #appendColumns(state: TableState, given: Map<string, ChunkColumn>, n: number): Promise<void> {
    let order = this.#order.get(state);
    if (order === undefined || order.at !== this.#schemaChanges) {
      await this.#appending.commit(); // the catalogue as committed
      order = { at: this.#schemaChanges, names: await physicalColumns(this.#conn, state.name) };
      this.#order.set(state, order);
    }
    const names = order.names;
    const synced = new Date();
    await this.#appending.append(state, names, n, (types) => buildChunks(this.#api, names, types, given, n, synced));
  }

  /** One of a run's columns staged strictly for its table. */
  #stage(state: TableState, name: string, target: string, source: unknown[]): StagedColumn {
    return stageColumn({ api: this.#api, table: state.name, name, target, source, lenient: false });
  }

  async #writeUpdates(state: TableState, run: Run): Promise<void> {
    const plan = planRun(state, run);
    const column = (name: string): unknown[] => run.columns.get(name) as unknown[];
    const keys = new Set(state.keys);
    // Key columns first, then the data columns given in the run.
    const staged: StagedColumn[] = [];
    for (const key of state.keys) {
      staged.push(this.#stage(state, key, plan.types.get(key) as string, column(key)));
    }
    for (const name of plan.present) {
      if (keys.has(name)) continue;
      // A column given only as null is set to null where it exists; a column
      // that does not exist yet is NULL already.
      const existing = state.columns.get(name);
      const type = plan.types.get(name) ?? (existing?.exists ? existing.type : undefined);
      if (type !== undefined) staged.push(this.#stage(state, name, type, column(name)));
    }
    const data = staged.slice(state.keys.length);
    const masks = data.map((staging) => {
      const values = column(staging.name);
      const mask: boolean[] = new Array(run.n);
      for (let i = 0; i < run.n; i++) mask[i] = values[i] !== undefined;
      return mask;
    });
    const check = await this.#staging.load(staged, run.n, masks, true);
    const body = [...(check === undefined ? [] : [check]), ...updateStatements(state, plan, staged)];
    await this.#executeRun(state, staged, body, [`DROP TABLE ${MERGED_REF}`, ...this.#staging.emptyStatements()]);
    commitPlan(state, plan);
    this.#schemaChanges += plan.changes;
  }

  async #writeDeletes(state: TableState, run: Run): Promise<void> {
    if (!state.exists) return;
    const staged = state.keys.map((name) => {
      const target = state.columns.get(name)?.type ?? 'VARCHAR';
      const source = run.columns.get(name) ?? [];
      return stageColumn({ api: this.#api, table: state.name, name, target, source, lenient: true });
    });
    await this.#staging.load(staged, run.n, undefined, false);
    await this.#execute([deleteStatement(state, staged)], this.#staging.emptyStatements());
  }

  async #writeTruncate(state: TableState): Promise<void> {
    if (!state.exists) return;
    await this.#execute([truncateStatement(state)]);
  }
}
