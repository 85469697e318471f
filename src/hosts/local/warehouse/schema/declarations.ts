/**
 * `declare()`'s bookkeeping: every table definition is checked before any is
 * registered (a bad definition changes nothing), a table's primary key can
 * never change, and declared columns take the spelling used for them first.
 * The database work happens later, in order, through the batch writer.
 */
import {
  sqlTypeOf,
  DELETED,
  FIVETRAN_ID,
  SYNCED,
  checkName,
  foldCase,
  newTableState,
  type TableState,
  columnLabel,
  tableLabel,
  warehouseError,
  type TableDefinition,
} from '../base/index.js';

/** A registered declaration: its declared columns, canonical names and SQL types. */
export interface Declaration {
  state: TableState;
  columns: [string, string][];
}

/** A definition checked: its table's name, its key and its columns with their SQL types. */
interface CheckedDefinition {
  table: string;
  keys: string[];
  columns: [string, string][];
}

/** Checks definitions now and registers them in `tables`; returns the work to apply in order. */
export function registerDeclarations(tables: Map<string, TableState>, definitions: TableDefinition[]): Declaration[] {
  if (!Array.isArray(definitions)) throw warehouseError('declare() takes an array of table definitions');
  const seen = new Set<string>();
  const parsed = definitions.map((definition) => checkDefinition(definition, seen));
  for (const definition of parsed) checkKeyUnchanged(tables, definition);
  // Every definition is valid: register them.
  return parsed.map((definition) => register(tables, definition));
}

/** One definition checked; `seen` holds the tables already declared in this call, case-folded. */
function checkDefinition(definition: TableDefinition, seen: Set<string>): CheckedDefinition {
  if (definition === null || typeof definition !== 'object') {
    throw warehouseError('a table definition must be an object');
  }
  const table = checkName('table', definition.table);
  if (seen.has(foldCase(table))) throw warehouseError(`${tableLabel(table)} is declared twice`);
  seen.add(foldCase(table));
  const keys = checkKeyList(table, definition.primary_key ?? []);
  if (definition.cursor !== undefined) checkName('column', definition.cursor, table);
  const columns = checkColumns(table, definition.columns ?? {});
  for (const key of keys) checkNotReserved(table, key);
  return { table, keys, columns };
}

/** A primary key: an array of valid column names, none twice. */
function checkKeyList(table: string, keyList: unknown): string[] {
  if (!Array.isArray(keyList)) throw warehouseError(`${tableLabel(table)}: primary_key must be an array`);
  const keySeen = new Set<string>();
  for (const key of keyList) {
    checkName('column', key, table);
    if (keySeen.has(foldCase(key))) throw warehouseError(`${columnLabel(table, key)}: listed twice in primary_key`);
    keySeen.add(foldCase(key));
  }
  return keyList as string[];
}

/** Declared columns: valid, unreserved names, none twice, with their SQL types. */
function checkColumns(table: string, spec: unknown): [string, string][] {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw warehouseError(`${tableLabel(table)}: columns must be an object`);
  }
  const columnSeen = new Set<string>();
  const columns: [string, string][] = [];
  for (const [column, type] of Object.entries(spec)) {
    checkName('column', column, table);
    checkNotReserved(table, column);
    const folded = foldCase(column);
    if (columnSeen.has(folded)) throw warehouseError(`${columnLabel(table, column)}: declared twice`);
    columnSeen.add(folded);
    columns.push([column, sqlTypeOf(type, table, column)]);
  }
  return columns;
}

/** The warehouse's own columns cannot be declared. */
function checkNotReserved(table: string, column: string): void {
  const folded = foldCase(column);
  if (folded === SYNCED || folded === DELETED || folded === FIVETRAN_ID) {
    throw warehouseError(`${columnLabel(table, column)}: the column name is reserved for the warehouse`);
  }
}

/** A table known already keeps its primary key. */
function checkKeyUnchanged(tables: Map<string, TableState>, { table, keys }: CheckedDefinition): void {
  const state = tables.get(foldCase(table));
  if (state === undefined) return;
  const current = state.keyless ? [] : state.keys.map(foldCase);
  const wanted = keys.map(foldCase);
  if (current.length === wanted.length && current.every((key, i) => key === wanted[i])) return;
  throw warehouseError(
    state.exists
      ? `${tableLabel(state.name)} exists in the warehouse with another primary key; delete the warehouse file to start over`
      : state.written
        ? `${tableLabel(state.name)} was written before it was declared with a primary key`
        : `${tableLabel(state.name)} is declared again with another primary key`,
  );
}

/** A checked definition registered: its table's state, declared, its columns under their first spelling. */
function register(tables: Map<string, TableState>, { table, keys, columns }: CheckedDefinition): Declaration {
  const folded = foldCase(table);
  let state = tables.get(folded);
  if (state === undefined) {
    state = newTableState(table, keys, false);
    tables.set(folded, state);
  }
  state.declared = true;
  const declared: [string, string][] = [];
  for (const [column, type] of columns) {
    const f = foldCase(column);
    let name = state.spelling.get(f);
    if (name === undefined) {
      name = column;
      state.spelling.set(f, name);
    }
    declared.push([name, type]);
  }
  return { state, columns: declared };
}
