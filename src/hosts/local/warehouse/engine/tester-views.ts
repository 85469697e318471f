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

/** A file whose `tester` schema holds tables was written before the move: refused, with the way out. */
export function refuseLegacyTables(legacyTables: number, path: string): void {
  if (legacyTables === 0) return;
  throw warehouseError(
    `${path} was written by an earlier connector-auth, whose tables are in schema ${LEGACY_SCHEMA}; run connector-auth reset to start it over in ${SCHEMA}`,
  );
}

/**
 * `tester.<table>` as a view of `default_schema.<table>`, for every table. Called at close only when
 * the catalogue found a view missing or out of step with its table (a run that changed a table
 * stopped before it closed the warehouse: existing-tables.ts), or after a schema change, so a run that
 * writes no new column leaves the views, and the file, as they were.
 */
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
