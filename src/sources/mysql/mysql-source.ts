import { importOptionalPackage } from '../../errors/index.js';
import { prepareSshTunnel } from '../../network/index.js';
import { defineSource } from '../source-definition.js';
import type { MysqlFailureContext } from './classify-mysql-error.js';
import { MYSQL_NEEDS, loginSecretOf } from './login-secret.js';
import { MysqlConnection } from './mysql-connection.js';
import type { MysqlSource } from './mysql-queries.js';
import { describeEndpoint, mysqlKeys, type MysqlEndpoint } from './mysql-settings.js';
import { mysqlSslOptions } from './mysql-tls.js';

/**
 * A MySQL or MariaDB database, through mysql2, imported by `connect`. The probe is one connection
 * and `SELECT 1`: the server reached, its certificate trusted, the credential accepted. `query` is
 * what a connector's update() uses: one connection, opened at the first query and opened again
 * after the server drops it, each login with a fresh password (a token signed for it). MySQL runs
 * one statement at a time per connection; a connector's statements queue on it in order
 * (mysql-connection.ts).
 *
 * The TCP socket is ours (mysql2's `stream`), directly or to an SSH tunnel's listener: Node then
 * checks the certificate against the real `host`. mysql2 alone checks an IP address host as
 * "localhost" (it gives Node no server name for an IP, and Node falls back to the socket's `_host`,
 * which mysql2's own socket has not set yet); our socket carries the host the certificate must name.
 */

export type { MysqlRow, MysqlSource } from './mysql-queries.js';

export default defineSource({
  name: 'mysql',
  tls: true,
  summary:
    'MySQL or MariaDB: password, client certificate, an RDS IAM token or a cloud access token; TLS verified by default; probe = one connection and SELECT 1',
  keys: mysqlKeys,
  // The login: a password, a cloud access token in its place, an IAM database token signed with AWS
  // keys, or a client certificate alone (an account created REQUIRE SUBJECT or X509).
  needs: MYSQL_NEEDS,
  async connect(k, credential, context): Promise<MysqlSource> {
    const endpoint: MysqlEndpoint = {
      host: k.host.trim(),
      port: k.port,
      user: k.user,
      database: k.database,
      tls: k.mysql_tls,
    };
    const tls = await context.tls.read();
    const login = await loginSecretOf(credential, endpoint, context.secrets);
    const ssl = mysqlSslOptions(endpoint, tls, login, context.log);
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(
      k,
      { host: endpoint.host, port: endpoint.port },
      { timeoutSeconds, log: context.log, secrets: context.secrets },
    );
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const failure: MysqlFailureContext = { endpoint, credential: credential.description, login, tls, timeoutSeconds };
    const mysql = (await importOptionalPackage('mysql2', "source 'mysql'", () => import('mysql2/promise'))).default;
    return new MysqlConnection({
      endpoint,
      target,
      credential,
      login,
      ssl,
      timeoutSeconds,
      failure,
      tunnel,
      log: context.log,
      mysql,
    });
  },
});
