/**
 * The DDL of the warehouse: creating a table with the warehouse's own
 * columns, adding and retyping columns, and rebuilding a table whose key
 * column changes type (DuckDB cannot retype an indexed column).
 */
import { DELETED, SYNCED, quoteIdent, tableRef, finalColumns, type TableState } from '../base/index.js';
import type { Plan } from './schema-plan.js';

export function createSql(table: string, columns: [string, string][], keys: string[]): string {
  const defs = columns.map(([name, type]) => `${quoteIdent(name)} ${type}`);
  defs.push(`${quoteIdent(SYNCED)} TIMESTAMPTZ`, `${quoteIdent(DELETED)} BOOLEAN DEFAULT false`);
  defs.push(`PRIMARY KEY (${keys.map(quoteIdent).join(', ')})`);
  return `CREATE TABLE ${tableRef(table)} (${defs.join(', ')})`;
}

/** Adds and retypes columns; a retyped key column needs the table rebuilt. */
export function alterSql(state: TableState, types: Map<string, string>, add: string[], alter: string[]): string[] {
  const ref = tableRef(state.name);
  if (alter.some((name) => state.keys.includes(name))) return rebuildSql(state, types);
  return [
    ...add.map((name) => `ALTER TABLE ${ref} ADD COLUMN ${quoteIdent(name)} ${types.get(name)}`),
    ...alter.map((name) => `ALTER TABLE ${ref} ALTER COLUMN ${quoteIdent(name)} SET DATA TYPE ${types.get(name)}`),
  ];
}

/** DuckDB cannot retype an indexed column: copy into a new table instead. */
function rebuildSql(state: TableState, types: Map<string, string>): string[] {
  const columns = finalColumns(state, types);
  const temporary = `__connector_auth_rebuild_${process.pid}_${Date.now()}`;
  const existing = columns.filter(([name]) => state.columns.get(name)?.exists === true);
  const targets = [...existing.map(([name]) => quoteIdent(name)), quoteIdent(SYNCED), quoteIdent(DELETED)];
  const sources = [
    ...existing.map(([name, type]) => `CAST(${quoteIdent(name)} AS ${type})`),
    quoteIdent(SYNCED),
    quoteIdent(DELETED),
  ];
  return [
    createSql(temporary, columns, state.keys),
    `INSERT INTO ${tableRef(temporary)} (${targets.join(', ')}) SELECT ${sources.join(', ')} FROM ${tableRef(state.name)}`,
    `DROP TABLE ${tableRef(state.name)}`,
    `ALTER TABLE ${tableRef(temporary)} RENAME TO ${quoteIdent(state.name)}`,
  ];
}

/** The DDL a plan needs. */
export function planSql(state: TableState, plan: Plan): string[] {
  if (plan.create) return [createSql(state.name, finalColumns(state, plan.types), state.keys)];
  const add: string[] = [];
  const alter: string[] = [];
  for (const [name, type] of plan.types) {
    const column = state.columns.get(name);
    if (column === undefined || !column.exists) add.push(name);
    else if (column.type !== type) alter.push(name);
  }
  return add.length + alter.length > 0 ? alterSql(state, plan.types, add, alter) : [];
}
