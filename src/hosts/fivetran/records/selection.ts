/**
 * The user's choice of tables and columns (UpdateRequest.selection), applied to the records before
 * they are sent: the connector still reads what it reads, but nothing deselected leaves the server.
 * No selection: everything. A table the selection does not list follows `include_new_tables`, a
 * column it does not list `include_new_columns`; primary key columns are always sent (Fivetran
 * does not let them be deselected, and a record without its key cannot be applied). Tables here
 * have no schema name, so a selection `with_schema` is read across its schemas.
 */

export interface SelectionMessage {
  without_schema?: { tables?: TableSelectionMessage[]; include_new_tables?: boolean };
  with_schema?: {
    schemas?: { included?: boolean; tables?: TableSelectionMessage[]; include_new_tables?: boolean }[];
    include_new_schemas?: boolean;
  };
}

export interface TableSelectionMessage {
  included?: boolean;
  table_name?: string;
  columns?: Record<string, boolean>;
  include_new_columns?: boolean;
}

export interface RecordFilter {
  table(name: string): boolean;
  /** undefined: every column of the table is sent. */
  columns(table: string, primaryKey: readonly string[]): ((column: string) => boolean) | undefined;
}

export const EVERYTHING: RecordFilter = { table: () => true, columns: () => undefined };

export function recordFilter(selection: SelectionMessage | undefined): RecordFilter {
  if (!selection || (!selection.without_schema && !selection.with_schema)) return EVERYTHING;
  const tables = new Map<string, TableSelectionMessage>();
  let includeNew: boolean;
  if (selection.without_schema) {
    for (const t of selection.without_schema.tables ?? []) if (t.table_name) tables.set(t.table_name, t);
    includeNew = selection.without_schema.include_new_tables ?? false;
  } else {
    const schemas = selection.with_schema!.schemas ?? [];
    for (const schema of schemas) {
      for (const t of schema.tables ?? [])
        if (t.table_name)
          tables.set(t.table_name, { ...t, included: (schema.included ?? false) && (t.included ?? false) });
    }
    includeNew = schemas.some((s) => s.include_new_tables) || (selection.with_schema!.include_new_schemas ?? false);
  }
  return {
    table: (name) => {
      const chosen = tables.get(name);
      return chosen ? (chosen.included ?? false) : includeNew;
    },
    columns: (table, primaryKey) => {
      const chosen = tables.get(table);
      // No column choices: the table as it comes.
      if (!chosen?.columns || Object.keys(chosen.columns).length === 0) return undefined;
      const columns = chosen.columns;
      const includeNewColumns = chosen.include_new_columns ?? true;
      return (column) =>
        primaryKey.includes(column) || (Object.hasOwn(columns, column) ? columns[column] === true : includeNewColumns);
    },
  };
}
