import { ConnectorError } from '../errors/index.js';
import type { SecretRegistry } from '../secrets/index.js';
import type { State, TableDefinition } from './define-connector.js';

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
}

/** Where operations land: the local DuckDB warehouse, or anything that behaves like it. */
export interface Destination {
  declare(tables: TableDefinition[]): Promise<void>;
  upsert(table: string, row: Record<string, unknown>): Promise<void>;
  update(table: string, row: Record<string, unknown>): Promise<void>;
  delete(table: string, keys: Record<string, unknown>): Promise<void>;
  truncate(table: string): Promise<void>;
  flush(): Promise<void>;
  readonly schemaChanges: number;
}

export interface StateStore {
  save(state: State): Promise<void>;
}

export interface OperationCounts {
  upserts: number;
  updates: number;
  deletes: number;
  truncates: number;
  schemaChanges: number;
  checkpoints: number;
}

/**
 * Wraps a destination with the counts of the run summary and a guard: a row or a state that holds
 * a registered secret is refused (exit 1) instead of being written where no redactor reaches.
 */
export function createOperations(destination: Destination, stateStore: StateStore, registry: SecretRegistry) {
  const counts: Omit<OperationCounts, 'schemaChanges'> = { upserts: 0, updates: 0, deletes: 0, truncates: 0, checkpoints: 0 };
  const guard = (table: string, row: Record<string, unknown>) => {
    if (registry.size === 0) return;
    for (const [column, value] of Object.entries(row)) {
      const text = typeof value === 'string' ? value : value !== null && typeof value === 'object' && !(value instanceof Date) ? safeJson(value) : undefined;
      if (text !== undefined && registry.contains(text)) {
        throw new ConnectorError(
          `refusing to write table '${table}' column '${column}': it holds the value of secret configuration key(s) ${registry.labelsIn(text).map((k) => `'${k}'`).join(', ')}`,
          { code: 'secret_in_row', hint: 'do not copy credentials into synced rows' },
        );
      }
    }
  };
  const op: Operations = {
    async upsert(table, data) {
      guard(table, data);
      counts.upserts++;
      await destination.upsert(table, data);
    },
    async update(table, modified) {
      guard(table, modified);
      counts.updates++;
      await destination.update(table, modified);
    },
    async delete(table, keys) {
      guard(table, keys);
      counts.deletes++;
      await destination.delete(table, keys);
    },
    async truncate(table) {
      counts.truncates++;
      await destination.truncate(table);
    },
    async checkpoint(state) {
      // The warehouse must never be behind the state that says how far the sync got.
      await destination.flush();
      await stateStore.save(state);
      counts.checkpoints++;
    },
  };
  return { op, counts: (): OperationCounts => ({ ...counts, schemaChanges: destination.schemaChanges }) };
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
