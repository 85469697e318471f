import { z } from 'zod';
import { keys } from '../../config/index.js';
import { bracketed, sshTunnelKeys } from '../../network/index.js';

/**
 * The mysql source's keys, named as the postgres source names them (`host`, `port`, `database`,
 * `user`), plus `mysql_tls`: `required` (the default: TLS, the server's certificate checked against
 * the CA and its name against `host`) or `none` (no TLS; warned on every run). `tls_skip_verify`
 * keeps TLS but checks nothing (warned too). MySQL's own clients call these ssl-mode
 * VERIFY_IDENTITY, REQUIRED and DISABLED; PREFERRED, which falls back to plain text without a
 * word, is not offered.
 */

export const MYSQL_TLS = ['required', 'none'] as const;
export type MysqlTls = (typeof MYSQL_TLS)[number];

export const mysqlKeys = z.object({
  host: keys.text(),
  port: keys.integer({ min: 1, max: 65535, default: 3306 }),
  database: keys.text(),
  user: keys.text(),
  mysql_tls: keys.oneOf(MYSQL_TLS, 'required'),
  ...sshTunnelKeys.shape,
});
export type MysqlKeys = z.output<typeof mysqlKeys>;

export interface MysqlEndpoint {
  host: string;
  port: number;
  user: string;
  database: string;
  tls: MysqlTls;
}

/** "mysql://alice@db.example.com:3306/sales (TLS)": what messages and the probe show. */
export function describeEndpoint(endpoint: MysqlEndpoint): string {
  return `mysql://${encodeURIComponent(endpoint.user)}@${bracketed(endpoint.host)}:${endpoint.port}/${encodeURIComponent(endpoint.database)} (${endpoint.tls === 'none' ? 'no TLS' : 'TLS'})`;
}
