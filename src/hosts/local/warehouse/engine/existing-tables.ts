/**
 * The tables a warehouse file already holds when it is opened, read from
 * DuckDB's catalogue, so a second session goes on where the first stopped
 * (and refuses tables it did not create).
 */
import {
  normalizeDbType,
  type Connection,
  DELETED,
  FIVETRAN_ID,
  SCHEMA,
  SYNCED,
  foldCase,
  newTableState,
  type TableState,
} from '../base/index.js';

/** Every table of the warehouse's schema, by case-folded name. */
export async function readExistingTables(conn: Connection): Promise<Map<string, TableState>> {
  const tables = new Map<string, TableState>();
  const columns = await conn.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = '${SCHEMA}' AND table_catalog = current_database()
       ORDER BY table_name, ordinal_position`,
  );
  const keys = await conn.runAndReadAll(
    `SELECT table_name, constraint_column_names FROM duckdb_constraints()
       WHERE schema_name = '${SCHEMA}' AND database_name = current_database() AND constraint_type = 'PRIMARY KEY'`,
  );
  const keysByTable = new Map<string, string[]>();
  for (const [table, names] of keys.getRowsJS() as [string, string[]][]) keysByTable.set(table, names);
  const byTable = new Map<string, [string, string][]>();
  for (const [table, column, type] of columns.getRowsJS() as [string, string, string][]) {
    let list = byTable.get(table);
    if (list === undefined) byTable.set(table, (list = []));
    list.push([column, normalizeDbType(type)]);
  }
  for (const [table, list] of byTable) {
    let tableKeys = keysByTable.get(table) ?? [];
    if (tableKeys.length === 1 && tableKeys[0] === FIVETRAN_ID) tableKeys = [];
    const state = newTableState(table, tableKeys, true);
    if (tableKeys.length === 0 && !list.some(([column]) => column === FIVETRAN_ID)) state.foreign = true;
    for (const [column, type] of list) {
      if (column === SYNCED || column === DELETED) continue;
      const declared = column === FIVETRAN_ID && state.keyless;
      state.columns.set(column, { name: column, type, declared, exists: true });
      state.spelling.set(foldCase(column), column);
    }
    tables.set(foldCase(table), state);
  }
  return tables;
}
