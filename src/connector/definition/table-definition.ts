/** Column types of the Python connector SDK, so a schema reads the same in both. */
export type ColumnType =
  | 'BOOLEAN'
  | 'SHORT'
  | 'INT'
  | 'LONG'
  | 'FLOAT'
  | 'DOUBLE'
  | 'NAIVE_DATE'
  | 'NAIVE_DATETIME'
  | 'UTC_DATETIME'
  | 'BINARY'
  | 'XML'
  | 'STRING'
  | 'JSON'
  | { type: 'DECIMAL'; precision: number; scale: number };

export interface TableDefinition {
  table: string;
  primary_key?: string[];
  columns?: Record<string, ColumnType>;
  /**
   * Whether a sync that starts from the last checkpoint reads only what changed (default true).
   * `false` for a table read whole every time: hosts that let a user choose (Airbyte's sync modes)
   * then offer a full refresh only, so rows deleted at the source do not linger.
   */
  incremental?: boolean;
  /**
   * The column an incremental read moves forward by (`updated_at`, an increasing id): rows after the
   * saved state's value are the ones read again. Hosts that show it name it (Airbyte's
   * `default_cursor_field`); where the state is kept is still the connector's own choice.
   */
  cursor?: string;
}

export type State = Record<string, unknown>;
