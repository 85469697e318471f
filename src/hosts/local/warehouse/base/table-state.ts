/**
 * What the warehouse knows about one table: its key, its columns (declared,
 * inferred or found in the file) and the operations buffered for it, in
 * runs of one kind held column by column.
 */
import { FIVETRAN_ID, foldCase } from './identifiers.js';

export interface Column {
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
export interface Run {
  kind: 'upsert' | 'update' | 'delete';
  n: number;
  columns: Map<string, unknown[]>;
  /**
   * The keys of the rows buffered so far, by position in the row, with their canonical names and
   * this run's arrays: rows of one shape (nearly all of them) skip the lookups by name.
   */
  shape?: { keys: string[]; names: string[]; arrays: unknown[][] };
}

export type Op = Run | { kind: 'truncate' };

export interface TableState {
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
  /** its upserts are merged, not appended: an append met a key it held already (batch-writer.ts) */
  merges: boolean;
  /** found in the file when it was opened, and no group appended to it since (append-groups.ts) */
  reopened: boolean;
}

export function newTableState(name: string, keys: string[], exists: boolean): TableState {
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
    merges: false,
    reopened: exists,
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

/** Every column of the table once `types` are applied, in table order. */
export function finalColumns(state: TableState, types: Map<string, string>): [string, string][] {
  const result: [string, string][] = [];
  for (const column of state.columns.values()) {
    const type = types.get(column.name) ?? column.type;
    if (type !== undefined) result.push([column.name, type]);
  }
  for (const [name, type] of types) if (!state.columns.has(name)) result.push([name, type]);
  return result;
}
