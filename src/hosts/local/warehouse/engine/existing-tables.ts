/**
 * What a warehouse file already holds when it is opened, read from DuckDB's catalogue: its tables
 * (so a second session goes on where the first stopped, and refuses tables it did not create),
 * tables left in the pre-move `tester` schema, and whether the `tester` views are out of step.
 *
 * Two statements: the overview (the schemas, the tables, their keys, the legacy schema, the views),
 * then the columns of those tables by DESCRIBE. `duckdb_columns()` gave the columns in the overview's
 * statement, but it lists every column of DuckDB's own ~30 system views too, binding each view to
 * learn its types: 10-15 ms against 1-2 ms for DESCRIBE of the tables themselves, on the thread
 * `debug` waits for after its probe. Few statements, since `debug` opens the file while it loads
 * and probes, and each statement's answer waits for a turn of that busy main thread.
 *
 * Both are plain SELECTs joined by UNION ALL, and the rows are counted, sorted and grouped here:
 * each aggregate, correlated subquery, window function or ORDER BY wakes more of DuckDB's engine
 * (its code paged in, its state allocated) in a process that otherwise never needs it. The same
 * answer through `list(… ORDER BY …)`, a correlated count and `row_number() OVER ()` cost 10.8 MiB
 * of resident memory and ~13 ms; these two statements cost 3.7 MiB and ~6 ms. Column order needs no
 * sort: DuckDB guarantees that UNION ALL, and a subquery of such clauses, keeps its rows' order.
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

export interface ExistingTables {
  /** Every table of the warehouse's schema, by case-folded name. */
  tables: Map<string, TableState>;
  /** Tables still in the `tester` schema: a file from before the move to `default_schema`. */
  legacyTables: number;
  /** Some table has no `tester` view, or one with another number of columns (tester-views.ts). */
  viewsStale: boolean;
  /** Which of the warehouse's two schemas the file holds (a file is made with both). */
  schemas: Set<string>;
  /**
   * Each table's columns in the file's order, `_fivetran_synced` and `_fivetran_deleted` included:
   * the order DuckDB's appender takes them in, until a schema change (batch-writer.ts).
   */
  columnOrder: Map<TableState, string[]>;
}

const IN_FILE = 'database_name = current_database()';

/**
 * Rows of [kind, schema, name, column count, key columns]: the warehouse's schemas, the file's
 * tables, `tester` views and primary keys.
 */
const OVERVIEW = `SELECT 'schema' AS kind, schema_name, schema_name AS name, NULL::BIGINT AS column_count, NULL::VARCHAR[] AS key_columns
  FROM duckdb_schemas() WHERE ${IN_FILE} AND schema_name IN ('${SCHEMA}', '${LEGACY_SCHEMA}')
UNION ALL SELECT 'table', schema_name, table_name, column_count, NULL
  FROM duckdb_tables() WHERE ${IN_FILE} AND schema_name IN ('${SCHEMA}', '${LEGACY_SCHEMA}')
UNION ALL SELECT 'view', schema_name, view_name, column_count, NULL
  FROM duckdb_views() WHERE ${IN_FILE} AND schema_name = '${LEGACY_SCHEMA}'
UNION ALL SELECT 'key', schema_name, table_name, NULL, constraint_column_names
  FROM duckdb_constraints() WHERE ${IN_FILE} AND schema_name = '${SCHEMA}' AND constraint_type = 'PRIMARY KEY'`;

type OverviewRow = ['schema' | 'table' | 'view' | 'key', string, string, number | null, string[] | null];

/**
 * The catalogue's two answers as DuckDB gave them (column counts as numbers): what
 * existing-tables-cache.ts keeps between runs, and what existingTablesOf() reads.
 */
export interface ExistingTableRows {
  overview: OverviewRow[];
  /** [the table's index in ownTables(overview), column, type], in each table's column order */
  described: [number, string, string][];
}

/** The warehouse schema's tables, sorted: the order DESCRIBE's rows refer to. */
function ownTables(overview: OverviewRow[]): OverviewRow[] {
  return overview
    .filter((row) => row[0] === 'table' && row[1] === SCHEMA)
    .sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
}

/** Each table's columns in their order, as [table's index in `tables`, column, type]. */
function describeAll(tables: string[]): string {
  return tables
    .map((table, i) => `SELECT ${i} AS t, column_name, column_type FROM (DESCRIBE ${tableRef(table)})`)
    .join(' UNION ALL ');
}

/**
 * The file's catalogue as DuckDB answers it. `setup` is run first in the same round trip (the
 * session's settings, at open): each statement's answer waits for a turn of `debug`'s busy main thread.
 */
export async function readExistingTableRows(conn: Connection, setup = ''): Promise<ExistingTableRows> {
  const rows = (await conn.runAndReadAll(`${setup}${OVERVIEW}`)).getRowsJS() as OverviewRow[];
  const overview = rows.map((row): OverviewRow => [
    row[0],
    row[1],
    row[2],
    row[3] === null ? null : Number(row[3]),
    row[4],
  ]);
  const tables = ownTables(overview).map(([, , name]) => name);
  const described =
    tables.length > 0
      ? ((await conn.runAndReadAll(describeAll(tables))).getRowsJS() as [number, string, string][])
      : [];
  return { overview, described };
}

/** The file's catalogue (tests; opening a warehouse reads the rows, or finds them kept). */
export async function readExistingTables(conn: Connection, setup = ''): Promise<ExistingTables> {
  return existingTablesOf(await readExistingTableRows(conn, setup));
}

/** What the catalogue's rows say: the tables with their state, the legacy schema, the views. */
export function existingTablesOf({ overview, described }: ExistingTableRows): ExistingTables {
  const ofKind = (kind: OverviewRow[0], schema: string) => overview.filter((r) => r[0] === kind && r[1] === schema);
  const own = ownTables(overview);
  const viewColumns = new Map(ofKind('view', LEGACY_SCHEMA).map(([, , name, count]) => [name, count]));
  // A table whose `tester` view is missing or has another number of columns.
  const stale = own.some(([, , name, count]) => viewColumns.get(name) !== count);
  const keys = ofKind('key', SCHEMA).map(([, , table, , names]) => ({ table, names: names ?? [] }));
  const columns = described.map(([t, column, type]): [string, string, string] => [own[t]![2], column, type]);
  return {
    ...tablesOf(columns, keys),
    legacyTables: ofKind('table', LEGACY_SCHEMA).length,
    viewsStale: stale,
    schemas: new Set(overview.filter((row) => row[0] === 'schema').map((row) => row[1])),
  };
}

function tablesOf(
  columns: [string, string, string][],
  keys: { table: string; names: string[] }[],
): Pick<ExistingTables, 'tables' | 'columnOrder'> {
  const tables = new Map<string, TableState>();
  const columnOrder = new Map<TableState, string[]>();
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
    columnOrder.set(
      state,
      Array.from(list, ([column]) => column),
    );
    if (tableKeys.length === 0 && !list.some(([column]) => column === FIVETRAN_ID)) state.foreign = true;
    for (const [column, type] of list) {
      if (column === SYNCED || column === DELETED) continue;
      const declared = column === FIVETRAN_ID && state.keyless;
      state.columns.set(column, { name: column, type, declared, exists: true });
      state.spelling.set(foldCase(column), column);
    }
    tables.set(foldCase(table), state);
  }
  return { tables, columnOrder };
}
