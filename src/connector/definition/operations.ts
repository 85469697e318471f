import { ConnectorError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { RowGuard } from './row-guard.js';
import { checkedStateJson } from './state-guard.js';
import type { Logger } from '../../log/index.js';
import type { State, TableDefinition } from './table-definition.js';

/** The Python SDK's operations, awaitable. */
export interface Operations {
  /** Insert or replace a whole row by primary key. */
  upsert(table: string, data: Record<string, unknown>): Promise<void>;
  /** Merge the given columns into the row with that primary key. */
  update(table: string, modified: Record<string, unknown>): Promise<void>;
  /** Soft delete: the row stays, marked `_fivetran_deleted`. */
  delete(table: string, keys: Record<string, unknown>): Promise<void>;
  /** Mark every row of the table deleted. */
  truncate(table: string): Promise<void>;
  /** Make all writes so far durable, then save the state (atomically). */
  checkpoint(state: State): Promise<void>;
  /**
   * Tell the user something the sync noticed but that does not stop it (a skipped record, a
   * deprecated endpoint): a Warning on Fivetran's dashboard, a WARN log on Airbyte, a line in debug.
   */
  warning(message: string): Promise<void>;
  /**
   * Ask the user to act (grant a permission, accept new terms) and stop the sync: a Task on
   * Fivetran's dashboard, a config_error on Airbyte; never returns (the run ends, exit 1).
   */
  task(message: string): Promise<never>;
}

/** What a user alert is: one that lets the sync go on, or one that stops it until someone acts. */
export type AlertKind = 'warning' | 'task';

/** Where operations land: the local DuckDB warehouse, or anything that behaves like it. */
export interface Destination {
  declare(tables: TableDefinition[]): Promise<void>;
  upsert(table: string, row: Record<string, unknown>): Promise<void>;
  update(table: string, row: Record<string, unknown>): Promise<void>;
  delete(table: string, keys: Record<string, unknown>): Promise<void>;
  truncate(table: string): Promise<void>;
  flush(): Promise<void>;
  readonly schemaChanges: number;
  /** Upserts written so far by each path, for a destination that has two (the local warehouse). */
  readonly upsertPaths?: UpsertPaths;
  /** Shows a user alert where the platform shows them (the text is redacted already); else it is logged. */
  alert?(kind: AlertKind, message: string): Promise<void>;
}

/** Upserts by the path that wrote them: appended as they were (the fast path), or merged. */
export interface UpsertPaths {
  appended: number;
  merged: number;
}

/** Where a checkpoint's state goes. */
export interface StateStore {
  /** `json` is the state serialized compactly, already checked (state-guard.ts): a JSON object, no secret. */
  save(state: State, json: string): Promise<void>;
}

export interface OperationCounts {
  upserts: number;
  updates: number;
  deletes: number;
  truncates: number;
  schemaChanges: number;
  checkpoints: number;
  /**
   * Rows written so far per table (upserts, updates and deletes), for progress lines. Optional so
   * that a host building its own counts need not keep it; createOperations always does.
   */
  tables?: Record<string, number>;
  /** The destination's upserts by path, when it has two (Destination.upsertPaths). */
  upsertPaths?: UpsertPaths;
}

/** What createOperations takes beside the destination, the state store and the registry. */
export interface OperationsOptions {
  signal?: AbortSignal;
  log?: Pick<Logger, 'warning' | 'error'>;
}

/**
 * Wraps a destination with the counts of the run summary and the guards: a row that holds a
 * registered secret is refused (exit 1) instead of being written where no redactor reaches
 * (row-guard.ts), and so is a checkpoint's state (state-guard.ts), for every host alike. A user
 * alert's text is redacted before it leaves.
 */
export function createOperations(
  destination: Destination,
  stateStore: StateStore,
  registry: SecretRegistry,
  options: OperationsOptions = {},
) {
  const run = new OperationsRun(destination, stateStore, registry, options);
  return {
    op: run.op,
    counts: (): OperationCounts => run.counts(),
    /** Resolves when no checkpoint is being saved: a stopped run closes only after the one in flight. */
    idle: (): Promise<unknown> => run.idle(),
  };
}

/** One run's operations with what they keep: the counts, the checkpoint in flight, the stop signal. */
class OperationsRun {
  /** The connector's `op`: an object of its own, its functions usable detached. */
  readonly op: Operations;
  readonly #destination: Destination;
  readonly #stateStore: StateStore;
  readonly #registry: SecretRegistry;
  readonly #options: OperationsOptions;
  readonly #signal: AbortSignal | undefined;
  readonly #guard: RowGuard;
  #checkpointing: Promise<unknown> = Promise.resolve();
  readonly #counts: Omit<OperationCounts, 'schemaChanges' | 'tables'> = {
    upserts: 0,
    updates: 0,
    deletes: 0,
    truncates: 0,
    checkpoints: 0,
  };
  // One map lookup per row: cheap beside the guard, and what a progress line names.
  readonly #rowsByTable = new Map<string, number>();

  constructor(destination: Destination, stateStore: StateStore, registry: SecretRegistry, options: OperationsOptions) {
    this.#destination = destination;
    this.#stateStore = stateStore;
    this.#registry = registry;
    this.#options = options;
    this.#signal = options.signal;
    this.#guard = new RowGuard(registry);
    this.op = this.#operations();
  }

  counts(): OperationCounts {
    const destination = this.#destination;
    return {
      ...this.#counts,
      schemaChanges: destination.schemaChanges,
      tables: Object.fromEntries(this.#rowsByTable),
      ...(destination.upsertPaths ? { upsertPaths: { ...destination.upsertPaths } } : {}),
    };
  }

  idle(): Promise<unknown> {
    return this.#checkpointing;
  }

  /**
   * Row operations are not async functions: a row costs no promise of its own, the destination's is
   * handed back (one already resolved while a batch fills); a refusal is still a rejection, never a throw.
   */
  #operations(): Operations {
    const destination = this.#destination;
    const counts = this.#counts;
    return {
      upsert: (table, data) => {
        try {
          this.#admitRow(table, data);
          counts.upserts++;
          this.#countRow(table);
          return destination.upsert(table, data);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      update: (table, modified) => {
        try {
          this.#admitRow(table, modified);
          counts.updates++;
          this.#countRow(table);
          return destination.update(table, modified);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      delete: (table, keys) => {
        try {
          this.#admitRow(table, keys);
          counts.deletes++;
          this.#countRow(table);
          return destination.delete(table, keys);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      truncate: (table) => this.#truncate(table),
      checkpoint: (state) => this.#checkpoint(state),
      warning: (message) => this.#warning(message),
      task: (message) => this.#task(message),
    };
  }

  // Once the run is stopped (a signal), every further operation is refused, a checkpoint included:
  // the state must stay the last one saved before the stop was announced.
  #refuseWhenStopped(): void {
    const signal = this.#signal;
    if (signal?.aborted) throw signal.reason;
  }

  /** A row may be written: the run goes on and the row holds no secret. */
  #admitRow(table: string, row: Record<string, unknown>): void {
    this.#refuseWhenStopped();
    this.#guard.row(table, row);
  }

  #countRow(table: string): void {
    this.#rowsByTable.set(table, (this.#rowsByTable.get(table) ?? 0) + 1);
  }

  async #truncate(table: string): Promise<void> {
    this.#refuseWhenStopped();
    this.#guard.table(table);
    this.#counts.truncates++;
    await this.#destination.truncate(table);
  }

  async #checkpoint(state: State): Promise<void> {
    this.#refuseWhenStopped();
    const json = checkedStateJson(state, this.#registry);
    const saving = this.#save(state, json);
    this.#checkpointing = saving.catch(() => undefined);
    await saving;
  }

  async #save(state: State, json: string): Promise<void> {
    // The warehouse must never be behind the state that says how far the sync got.
    await this.#destination.flush();
    await this.#stateStore.save(state, json);
    this.#counts.checkpoints++;
  }

  async #warning(message: string): Promise<void> {
    this.#refuseWhenStopped();
    await this.#alert('warning', message);
  }

  async #task(message: string): Promise<never> {
    this.#refuseWhenStopped();
    // What was written before the task reaches the destination first, in order.
    await this.#destination.flush();
    const text = await this.#alert('task', message);
    throw new ConnectorError(`the connector stopped the sync with a task for the user: ${text}`, {
      code: 'connector_task',
      hint: 'do what the task asks, then sync again',
    });
  }

  // An alert's text goes where no redactor runs after us (a dashboard): redacted here.
  async #alert(kind: AlertKind, message: unknown): Promise<string> {
    const text = this.#registry.redact(String(message));
    if (this.#destination.alert) await this.#destination.alert(kind, text);
    else if (kind === 'warning') this.#options.log?.warning(`warning from the connector: ${text}`);
    return text;
  }
}
