/**
 * What a warehouse file already holds when it is opened, read from DuckDB's catalogue: its tables
 * (so a second session goes on where the first stopped, and refuses tables it did not create),
 * tables left in the pre-move `tester` schema, and whether the `tester` views are out of step.
 *
 * Two statements: the overview (the tables, their keys, the legacy schema, the views), then the
 * columns of those tables by DESCRIBE. `duckdb_columns()` gave the columns in the overview's
 * statement, but it lists every column of DuckDB's own ~30 system views too, binding each view to
 * learn its types: 10-15 ms against 1-2 ms for DESCRIBE of the tables themselves, on the thread
 * `debug` waits for after its probe. Few statements, since `debug` opens the file while it loads
 * and probes, and each statement's answer waits for a turn of that busy main thread.
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
  tableRef,
} from '../base/index.js';
import { LEGACY_SCHEMA } from './tester-views.js';

export interface Catalogue {
  /** Every table of the warehouse's schema, by case-folded name. */
  tables: Map<string, TableState>;
  /** Tables still in the `tester` schema: a file from before the move to `default_schema`. */
  legacyTables: number;
  /** Some table has no `tester` view, or one with another number of columns (tester-views.ts). */
  viewsStale: boolean;
}

const IN_FILE = 'database_name = current_database()';

const OVERVIEW = `SELECT
  (SELECT count(*) FROM duckdb_tables() WHERE ${IN_FILE} AND schema_name = '${LEGACY_SCHEMA}') AS legacy,
  (SELECT count(*) FROM duckdb_tables() t WHERE ${IN_FILE} AND schema_name = '${SCHEMA}'
     AND column_count IS DISTINCT FROM (SELECT v.column_count FROM duckdb_views() v
       WHERE v.database_name = t.database_name AND v.schema_name = '${LEGACY_SCHEMA}' AND v.view_name = t.table_name)) AS stale,
  (SELECT list(table_name ORDER BY table_name) FROM duckdb_tables() WHERE ${IN_FILE} AND schema_name = '${SCHEMA}') AS tables,
  (SELECT list({'table': table_name, 'names': constraint_column_names}) FROM duckdb_constraints()
     WHERE ${IN_FILE} AND schema_name = '${SCHEMA}' AND constraint_type = 'PRIMARY KEY') AS keys`;

/** Each table's columns in their order, as [table's index in `tables`, column, type]. */
function describeAll(tables: string[]): string {
  const each = tables.map(
    (table, i) =>
      `SELECT ${i} AS t, row_number() OVER () AS c, column_name, column_type FROM (DESCRIBE ${tableRef(table)})`,
  );
  return `SELECT t, column_name, column_type FROM (${each.join(' UNION ALL ')}) ORDER BY t, c`;
}

export async function readCatalogue(conn: Connection): Promise<Catalogue> {
  const [overview] = (await conn.runAndReadAll(OVERVIEW)).getRowsJS() as [
    [bigint, bigint, string[] | null, { table: string; names: string[] }[] | null],
  ];
  const [legacy, stale, tables, keys] = overview;
  const described =
    tables && tables.length > 0
      ? ((await conn.runAndReadAll(describeAll(tables))).getRowsJS() as [number, string, string][])
      : [];
  const columns = described.map(([t, column, type]): [string, string, string] => [tables![t]!, column, type]);
  return { tables: tablesOf(columns, keys ?? []), legacyTables: Number(legacy), viewsStale: stale > 0n };
}

function tablesOf(
  columns: [string, string, string][],
  keys: { table: string; names: string[] }[],
): Map<string, TableState> {
  const tables = new Map<string, TableState>();
  const keysByTable = new Map(keys.map(({ table, names }) => [table, names]));
  const byTable = new Map<string, [string, string][]>();
  for (const [table, column, type] of columns) {
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
