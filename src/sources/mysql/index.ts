export { default } from './mysql-source.js';
export type { MysqlSource, MysqlRow } from './mysql-queries.js';
export type { MysqlTls } from './mysql-settings.js';
