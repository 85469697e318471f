/**
 * The warehouse's tables live in schema `default_schema`, where the Python SDK's current local tester
 * puts them (its docs query `default_schema.<table>`). Its earlier versions, and connector-auth's,
 * used `tester`: that name stays readable as a view per table, so a query or a script written for it
 * keeps working. Views are refreshed when the warehouse closes, after the last schema change of the
 * run (DuckDB refuses a view whose table has since gained columns until it is made again).
 *
 * A file whose `tester` holds real tables was written by connector-auth before the move; it is
 * refused with the way out rather than half-migrated.
 */
import { type Connection, SCHEMA, quoteIdent, warehouseError } from '../base/index.js';

export const LEGACY_SCHEMA = 'tester';

/** Creates the legacy schema, refusing a file whose tables are still in it. */
export async function prepareLegacySchema(conn: Connection, path: string, fresh = false): Promise<void> {
  // A file made just now holds no tables of an earlier connector-auth: nothing to look for.
  const old = fresh
    ? undefined
    : await conn.runAndReadAll(
        `SELECT count(*) FROM information_schema.tables WHERE table_schema = '${LEGACY_SCHEMA}' AND table_type = 'BASE TABLE' AND table_catalog = current_database()`,
      );
  if (old && Number((old.getRowsJS()[0] as [bigint])[0]) > 0) {
    throw warehouseError(
      `${path} was written by an earlier connector-auth, whose tables are in schema ${LEGACY_SCHEMA}; run connector-auth reset to start it over in ${SCHEMA}`,
    );
  }
  await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(LEGACY_SCHEMA)}`);
}

/**
 * True when some table has no `tester` view, or one with another number of columns (a run that
 * changed the table stopped before it closed the warehouse): the views are refreshed at close only
 * then, or after a schema change, so a run that writes no new column leaves them, and the file, as
 * they were.
 */
export async function legacyViewsStale(conn: Connection): Promise<boolean> {
  const stale = await conn.runAndReadAll(
    `SELECT count(*) FROM duckdb_tables() t
       WHERE t.database_name = current_database() AND t.schema_name = '${SCHEMA}'
         AND t.column_count IS DISTINCT FROM (SELECT v.column_count FROM duckdb_views() v
           WHERE v.database_name = t.database_name AND v.schema_name = '${LEGACY_SCHEMA}' AND v.view_name = t.table_name)`,
  );
  return Number((stale.getRowsJS()[0] as [bigint])[0]) > 0;
}

/** `tester.<table>` as a view of `default_schema.<table>`, for every table. */
export async function refreshLegacyViews(conn: Connection): Promise<void> {
  const tables = await conn.runAndReadAll(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = '${SCHEMA}' AND table_type = 'BASE TABLE' AND table_catalog = current_database()`,
  );
  for (const [table] of tables.getRowsJS() as [string][]) {
    await conn.run(
      `CREATE OR REPLACE VIEW ${quoteIdent(LEGACY_SCHEMA)}.${quoteIdent(table)} AS SELECT * FROM ${quoteIdent(SCHEMA)}.${quoteIdent(table)}`,
    );
  }
}
