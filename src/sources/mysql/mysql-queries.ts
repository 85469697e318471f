import type { ConnectedSource } from '../source-definition.js';

/**
 * What a connector's update() holds of a MySQL or MariaDB database (mysql-connection.ts makes it).
 * Apart from the connection so that our declarations name no type of mysql2, an optional peer.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mysql2's own row type, so a row interface of the user's fits
export type MysqlRow = { [column: string]: any };

export interface MysqlSource extends ConnectedSource {
  /** "mysql://alice@db.example.com:3306/sales (TLS)", "… via ssh://jump@bastion:22": no secret in it. */
  readonly target: string;
  /**
   * Runs one statement with `?` placeholders (`values` escaped by mysql2) and returns its rows. A
   * failure to connect is classified like the probe's; an error of the SQL itself is mysql2's own.
   */
  query<Row extends MysqlRow = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<Row[]>;
}
