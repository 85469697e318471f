import { ConnectorError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
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
  /** Shows a user alert where the platform shows them (the text is redacted already); else it is logged. */
  alert?(kind: AlertKind, message: string): Promise<void>;
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
  /**
   * Rows written so far per table (upserts, updates and deletes), for progress lines. Optional so
   * that a host building its own counts need not keep it; createOperations always does.
   */
  tables?: Record<string, number>;
}

/**
 * Wraps a destination with the counts of the run summary and a guard: a row or a state that holds
 * a registered secret is refused (exit 1) instead of being written where no redactor reaches.
 *
 * The guard looks at what the warehouse will store, not at the value as JavaScript prints it:
 * strings as their text, numbers as a whole secret only, objects as the JSON the warehouse
 * writes (see `storedTexts`), bytes decoded, and the table and column names, which become
 * identifiers in warehouse.db. A value it cannot see that way is refused too: unchecked is not allowed through.
 */
export function createOperations(
  destination: Destination,
  stateStore: StateStore,
  registry: SecretRegistry,
  options: { signal?: AbortSignal; log?: Pick<Logger, 'warning' | 'error'> } = {},
) {
  // Once the run is stopped (a signal), every further operation is refused, a checkpoint included:
  // the state must stay the last one saved before the stop was announced.
  const { signal } = options;
  const refuseWhenStopped = () => {
    if (signal?.aborted) throw signal.reason;
  };
  let checkpointing: Promise<unknown> = Promise.resolve();
  const counts: Omit<OperationCounts, 'schemaChanges' | 'tables'> = {
    upserts: 0,
    updates: 0,
    deletes: 0,
    truncates: 0,
    checkpoints: 0,
  };
  // One map lookup per row: cheap beside the guard, and what a progress line names.
  const rowsByTable = new Map<string, number>();
  const countRow = (table: string) => void rowsByTable.set(table, (rowsByTable.get(table) ?? 0) + 1);
  // Names go into messages through the redactor: the name itself may be what is refused.
  const refuse = (what: string, text: string) =>
    new ConnectorError(
      `refusing to write ${what}: it holds the value of secret configuration key(s) ${registry
        .labelsIn(text)
        .map((k) => `'${k}'`)
        .join(', ')}`,
      { code: 'secret_in_row', hint: 'do not copy credentials into synced rows' },
    );
  // Table and column names repeat on every row: each is checked once, and again only when a new
  // secret has been registered since (a rotated token).
  const cleanNames = new Set<string>();
  // The column names of recent rows by position, each found clean: a row of the same shape is
  // checked by comparing names, without looking them up.
  const cleanByPosition: string[] = [];
  let namesCheckedAt = -1;
  const nameIsClean = (name: string) => {
    if (namesCheckedAt !== registry.size) {
      cleanNames.clear();
      cleanByPosition.length = 0;
      namesCheckedAt = registry.size;
    }
    if (cleanNames.has(name)) return true;
    if (registry.contains(name)) return false;
    cleanNames.add(name);
    return true;
  };
  const guardTable = (table: string) => {
    if (registry.size === 0 || typeof table !== 'string') return;
    if (!nameIsClean(table)) throw refuse(`table '${registry.redact(table)}'`, table);
  };
  // The place, for a refusal only (redacting a name costs more than checking it).
  const where = (table: string, column: string) =>
    `table '${registry.redact(table)}' column '${registry.redact(column)}'`;
  // Whether a secret could hide in a number's text at all (a numeric PIN): usually not, and then
  // numbers are not turned into text to be looked at (measured: a third of the guard's time).
  let numbersCheckedAt = -1;
  let numbersMayHold = true;
  const guard = (table: string, row: Record<string, unknown>) => {
    if (registry.size === 0) return;
    guardTable(table);
    // Not an object: nothing to look into; the destination refuses it on its own.
    if (row === null || typeof row !== 'object') return;
    if (numbersCheckedAt !== registry.size) {
      numbersMayHold = registry.mayOccurInNumbers();
      numbersCheckedAt = registry.size;
    }
    let position = 0;
    for (const column in row) {
      if (!Object.hasOwn(row, column)) continue;
      const value = row[column];
      if (cleanByPosition[position] !== column || namesCheckedAt !== registry.size) {
        if (!nameIsClean(column)) throw refuse(`${where(table, column)} (its name)`, column);
        cleanByPosition[position] = column;
      }
      position++;
      // Stored without any text of their own (storedTexts says the same, without its allocation).
      if (value === null || value === undefined || typeof value === 'boolean' || value instanceof Date) continue;
      if (typeof value === 'number' || typeof value === 'bigint') {
        if (!numbersMayHold) continue;
        // A number is refused only when it is a secret whole (a numeric PIN written as a number):
        // digits of a secret inside a longer number (an id, an amount) are a coincidence, not a leak.
        const text = String(value);
        if (registry.contains(text) && /^<redacted:[^>]+>$/.test(registry.redact(text)))
          throw refuse(where(table, column), text);
        continue;
      }
      if (typeof value === 'string') {
        if (registry.contains(value)) throw refuse(where(table, column), value);
        continue;
      }
      const texts = storedTexts(value);
      if (texts === undefined) {
        throw new ConnectorError(
          `refusing to write ${where(table, column)}: its value cannot be serialized to JSON, so it cannot be checked for secrets`,
          {
            code: 'row_value_not_serializable',
            hint: 'give the column a string, number, boolean, Date, Uint8Array or a JSON-serializable object or array',
          },
        );
      }
      for (const text of texts) if (registry.contains(text)) throw refuse(where(table, column), text);
    }
  };
  // Not async functions: a row costs no promise of its own, the destination's is handed back
  // (one already resolved while a batch fills); a refusal is still a rejection, never a throw.
  const op: Operations = {
    upsert(table, data) {
      try {
        refuseWhenStopped();
        guard(table, data);
        counts.upserts++;
        countRow(table);
        return destination.upsert(table, data);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    update(table, modified) {
      try {
        refuseWhenStopped();
        guard(table, modified);
        counts.updates++;
        countRow(table);
        return destination.update(table, modified);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    delete(table, keys) {
      try {
        refuseWhenStopped();
        guard(table, keys);
        counts.deletes++;
        countRow(table);
        return destination.delete(table, keys);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async truncate(table) {
      refuseWhenStopped();
      guardTable(table);
      counts.truncates++;
      await destination.truncate(table);
    },
    async checkpoint(state) {
      refuseWhenStopped();
      const saving = (async () => {
        // The warehouse must never be behind the state that says how far the sync got.
        await destination.flush();
        await stateStore.save(state);
        counts.checkpoints++;
      })();
      checkpointing = saving.catch(() => undefined);
      await saving;
    },
    async warning(message) {
      refuseWhenStopped();
      await alert('warning', message);
    },
    async task(message) {
      refuseWhenStopped();
      // What was written before the task reaches the destination first, in order.
      await destination.flush();
      const text = await alert('task', message);
      throw new ConnectorError(`the connector stopped the sync with a task for the user: ${text}`, {
        code: 'connector_task',
        hint: 'do what the task asks, then sync again',
      });
    },
  };
  // An alert's text goes where no redactor runs after us (a dashboard): redacted here.
  const alert = async (kind: AlertKind, message: unknown): Promise<string> => {
    const text = registry.redact(String(message));
    if (destination.alert) await destination.alert(kind, text);
    else if (kind === 'warning') options.log?.warning(`warning from the connector: ${text}`);
    return text;
  };
  return {
    op,
    counts: (): OperationCounts => ({
      ...counts,
      schemaChanges: destination.schemaChanges,
      tables: Object.fromEntries(rowsByTable),
    }),
    /** Resolves when no checkpoint is being saved: a stopped run closes only after the one in flight. */
    idle: (): Promise<unknown> => checkpointing,
  };
}

/**
 * How an object or array value of a row is written as JSON: a BigInt becomes its decimal text. The
 * warehouse (src/hosts/local/warehouse/values.ts) writes with it and the guard checks with it, so the two
 * cannot differ (a nested BigInt once made the guard's JSON.stringify throw while the warehouse's
 * succeeded).
 */
export function rowJsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The texts in which a column value that is neither a string nor a number (the guard checks those
 * itself) reaches the warehouse file, or undefined when it cannot be serialized (the warehouse
 * refuses those too; the guard refuses them first, unchecked).
 */
export function storedTexts(value: unknown): string[] | undefined {
  switch (typeof value) {
    case 'object': {
      if (value === null || value instanceof Date) return [];
      // Bytes are stored as a BLOB, not as JSON: what they spell is what must be checked.
      const bytes = binaryBytes(value);
      if (bytes !== undefined) return decodings(bytes);
      const texts: string[] = [];
      let json: string | undefined;
      try {
        json = JSON.stringify(value, (key, member: unknown) => {
          // Bytes nested in an object are stored as numbers ({"type":"Buffer","data":[…]} from
          // Buffer's toJSON, {"0":…} for a plain Uint8Array): still the secret, one step removed.
          const nested = binaryBytes(member) ?? bufferJsonBytes(member);
          if (nested !== undefined) texts.push(...decodings(nested));
          return rowJsonReplacer(key, member);
        });
      } catch {
        return undefined;
      }
      if (json === undefined) return undefined;
      texts.push(json);
      return texts;
    }
    default:
      // boolean, undefined (skipped), function and symbol (the warehouse refuses them).
      return [];
    // string, number and bigint do not come here: the guard compares them itself.
  }
}

function binaryBytes(value: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return undefined;
}

/** The shape Buffer.prototype.toJSON gives, which is what a replacer sees for a nested Buffer. */
function bufferJsonBytes(value: unknown): Uint8Array | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { type, data } = value as { type?: unknown; data?: unknown };
  if (type !== 'Buffer' || !Array.isArray(data) || !data.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    return undefined;
  return Uint8Array.from(data as number[]);
}

/** Bytes as text both ways a reader may take them: UTF-8 (invalid sequences replaced) and latin1. */
function decodings(bytes: Uint8Array): string[] {
  return [
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'),
  ];
}
