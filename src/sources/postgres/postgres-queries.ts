import type { ConnectedSource } from '../source-definition.js';
import type { SslMode } from './connection-settings.js';

/**
 * What a connector's update() holds of a PostgreSQL database (postgres-connection.ts makes it).
 * Apart from the connection so that our declarations need no @types/pg: a user's type check must
 * stand on what they install.
 */

/** A row as pg gives it (pg's QueryResultRow, spelled here). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's own row type, so a row interface of the user's fits
export type QueryRow = { [column: string]: any };

export interface PostgresSource extends ConnectedSource {
  /** "postgres://alice@db.example.com:5432/sales (sslmode=verify-full)", "… via ssh://jump@bastion:22": no secret in it. */
  readonly target: string;
  readonly sslmode: SslMode;
  /**
   * Runs one statement with `$1`-style parameters and returns its rows. Statements may run on
   * different pooled connections: a transaction must be one statement (or a DO block / function).
   * A failure to connect is classified like the probe's; an error of the SQL itself is pg's own.
   */
  query<Row extends QueryRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
}

/** Enough for a connector's parallel reads, small enough not to crowd a shared server. */
export const POOL_SIZE = 4;
