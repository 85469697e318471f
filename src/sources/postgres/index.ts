export { default } from './postgres-source.js';
export type { PostgresSource } from './postgres-queries.js';
export { POOL_SIZE } from './postgres-queries.js';
export type { SslMode } from './connection-settings.js';
export { rdsAuthTokens, rdsRegion } from './rds-auth-token.js';
