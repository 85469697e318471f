/**
 * Names in the warehouse: the schema every table lives in, the columns the
 * warehouse adds itself, and how a connector's table and column names are
 * checked, folded and quoted. DuckDB identifiers are case-insensitive, so
 * every lookup goes through `foldCase`.
 */
import { tableLabel, warehouseError } from './warehouse-errors.js';

/** Where the Python SDK's local tester puts tables today; `tester` stays readable (tester-views.ts). */
export const SCHEMA = 'default_schema';
export const SYNCED = '_fivetran_synced';
export const DELETED = '_fivetran_deleted';
export const FIVETRAN_ID = '_fivetran_id';

export function checkName(kind: 'table' | 'column', name: unknown, table?: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0')) {
    const where = table === undefined ? '' : `${tableLabel(table)}: `;
    throw warehouseError(`${where}invalid ${kind} name: it must be a non-empty string without NUL characters`);
  }
  return name;
}

/** DuckDB identifiers are case-insensitive (ASCII folding), even when quoted. */
export function foldCase(name: string): string {
  return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function tableRef(table: string): string {
  return `${quoteIdent(SCHEMA)}.${quoteIdent(table)}`;
}
