/**
 * How a connector's call becomes buffered values: the row is copied into the
 * table's last run (or a new run when the kind changes), under canonical
 * column names, its key checked and, for a table without a primary key, its
 * `_fivetran_id` computed. Nothing here touches the database.
 */
import {
  DELETED,
  FIVETRAN_ID,
  SYNCED,
  checkName,
  foldCase,
  type Op,
  type Run,
  type TableState,
  copyObjectValue,
  fivetranId,
  columnLabel,
  tableLabel,
  warehouseError,
  type Row,
} from '../base/index.js';

/** Adds one operation to the table's pending operations; on error they are left as they were. */
export function bufferOperation(state: TableState, kind: Op['kind'], row: Row | undefined): void {
  if (kind === 'truncate') {
    if (state.pending[state.pending.length - 1]?.kind !== 'truncate') state.pending.push({ kind });
  } else {
    const last = state.pending[state.pending.length - 1];
    if (last !== undefined && last.kind === kind) {
      appendToRun(state, last as Run, row);
    } else {
      const run: Run = { kind, n: 0, columns: new Map() };
      appendToRun(state, run, row);
      state.pending.push(run);
    }
  }
}

/** The canonical name of a row's key: the first spelling seen for it, case-insensitively. */
function columnName(state: TableState, key: string): string {
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
function appendToRun(state: TableState, run: Run, row: unknown): void {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) {
    throw warehouseError(`${tableLabel(state.name)}: ${run.kind === 'delete' ? 'keys' : 'a row'} must be an object`);
  }
  const n = run.n;
  try {
    appendValues(state, run, row as Row);
    if (state.keyless) appendFivetranId(state, run.columns, row as Row, n);
    else checkKeys(state, run.columns, n);
  } catch (error) {
    for (const values of run.columns.values()) if (values.length > n) values.length = n;
    throw error;
  }
  run.n = n + 1;
}

/**
 * The row's values as the run's next entry of their columns. The run's shape remembers the
 * last row's keys with their columns, so a row shaped as the one before looks up no name.
 */
function appendValues(state: TableState, run: Run, source: Row): void {
  const n = run.n;
  const keysOnly = run.kind === 'delete';
  const shape = keysOnly ? undefined : (run.shape ??= { keys: [], names: [], arrays: [] });
  // for…in over own keys: the same keys in the same order as Object.keys, without an array per row.
  let k = 0;
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    let value = source[key];
    if (value === undefined) continue;
    let name: string;
    let values: unknown[];
    if (shape !== undefined && shape.keys[k] === key) {
      name = shape.names[k] as string;
      values = shape.arrays[k] as unknown[];
    } else {
      name = state.rawNames.get(key) ?? columnName(state, key);
      if (keysOnly && !state.keys.includes(name)) continue;
      values = columnValues(run.columns, name, n);
      if (shape !== undefined) {
        shape.keys[k] = key;
        shape.names[k] = name;
        shape.arrays[k] = values;
      }
    }
    k++;
    if (typeof value === 'object') {
      if (value !== null) value = copyObjectValue(value, state.name, name);
    } else if (typeof value === 'function' || typeof value === 'symbol') {
      throw warehouseError(`${columnLabel(state.name, name)}: values of type ${typeof value} cannot be stored`);
    }
    if (values.length > n) {
      throw warehouseError(
        `${columnLabel(state.name, name)}: given twice in one row (column names are case-insensitive)`,
      );
    }
    values[n] = value;
  }
}

/** A column of the run, created (as long as the run, empty) the first time it is given. */
function columnValues(columns: Run['columns'], name: string, n: number): unknown[] {
  let values = columns.get(name);
  if (values === undefined) {
    values = n === 0 ? [] : new Array(n);
    columns.set(name, values);
  }
  return values;
}

/** A keyless table's row: its `_fivetran_id` as given (a string), or computed from its data. */
function appendFivetranId(state: TableState, columns: Run['columns'], source: Row, n: number): void {
  const given = columns.get(FIVETRAN_ID)?.[n];
  if (given === undefined || given === null) {
    const id = rowHash(state, source);
    columnValues(columns, FIVETRAN_ID, n)[n] = id;
  } else if (typeof given !== 'string') {
    throw warehouseError(`${columnLabel(state.name, FIVETRAN_ID)}: must be a string`);
  }
}

/** Every primary key column has a value in the row. */
function checkKeys(state: TableState, columns: Run['columns'], n: number): void {
  for (const key of state.keys) {
    const value = columns.get(key)?.[n];
    if (value === undefined || value === null) {
      throw warehouseError(`${columnLabel(state.name, key)}: the primary key value is missing or null`);
    }
  }
}

/** `_fivetran_id` of a row as given: its non-null data under canonical names. */
function rowHash(state: TableState, row: Row): string {
  const members: [string, unknown][] = [];
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (value === undefined || value === null) continue;
    const name = state.rawNames.get(key) ?? columnName(state, key);
    if (name === FIVETRAN_ID) continue;
    members.push([name, value]);
  }
  return fivetranId(state.name, members);
}
