/**
 * The warehouse's errors: plain `Error`s naming the table and column, never a
 * row value (values may be secrets). DuckDB's own messages quote the values
 * they choke on, so they are reduced to their category here.
 */

/** Errors built here carry no row values and are rethrown as they are. */
const safeErrors = new WeakSet<Error>();

export function warehouseError(message: string): Error {
  const error = new Error(`warehouse: ${message}`);
  safeErrors.add(error);
  return error;
}

function named(name: string): string {
  return JSON.stringify(name);
}

export function tableLabel(table: string): string {
  return `table ${named(table)}`;
}

export function columnLabel(table: string, column: string): string {
  return `table ${named(table)}, column ${named(column)}`;
}

/**
 * An error from DuckDB reduced to its category: its messages quote the
 * offending values ("Duplicate key "id: 5"", "Could not convert string 'x'").
 */
export function sanitize(error: unknown, context: string): Error {
  if (error instanceof Error && safeErrors.has(error)) return error;
  const message = error instanceof Error ? error.message : '';
  const category = /^([A-Za-z ]{1,40} Error):/.exec(message)?.[1];
  return warehouseError(`${context} failed${category === undefined ? '' : ` (${category})`}`);
}
