import type { EventEmitter } from 'node:events';
import { connect as connectTcp, type Socket } from 'node:net';
import type { Connection, ConnectionOptions } from 'mysql2/promise';
import { importOptionalPackage } from '../../errors/index.js';
import { firstLineOf, prepareSshTunnel } from '../../network/index.js';
import { defineSource, type ConnectedSource, type ProbeResult } from '../source-definition.js';
import {
  classifyMysqlError,
  isSqlStatementError,
  unexpectedLoginFailure,
  type MysqlFailureContext,
} from './classify-mysql-error.js';
import { MYSQL_NEEDS, loginSecretOf } from './login-secret.js';
import { describeEndpoint, mysqlKeys, type MysqlEndpoint } from './mysql-settings.js';
import { mysqlSslOptions } from './mysql-tls.js';

/**
 * A MySQL or MariaDB database, through mysql2, imported by `connect`. The probe is one connection
 * and `SELECT 1`: the server reached, its certificate trusted, the credential accepted. `query` is
 * what a connector's update() uses: one connection, opened at the first query and opened again
 * after the server drops it, each login with a fresh password (a token signed for it). MySQL runs
 * one statement at a time per connection; a connector's statements queue on it in order.
 *
 * The TCP socket is ours (mysql2's `stream`), directly or to an SSH tunnel's listener: Node then
 * checks the certificate against the real `host`. mysql2 alone checks an IP address host as
 * "localhost" (it gives Node no server name for an IP, and Node falls back to the socket's `_host`,
 * which mysql2's own socket has not set yet); our socket carries the host the certificate must name.
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

    /** One login: the socket (direct or through the tunnel), a fresh password, mysql2's handshake. */
    const open = async (): Promise<Connection> => {
      const reach = tunnel ? await tunnel.open() : endpoint;
      const options: ConnectionOptions = {
        host: endpoint.host,
        port: endpoint.port,
        user: endpoint.user,
        database: endpoint.database,
        password: await login.password(),
        ...(ssl ? { ssl } : {}),
        // The clear-text plugin (tokens, PAM or LDAP accounts) only inside TLS.
        enableCleartextPlugin: ssl !== undefined,
        connectTimeout: timeoutSeconds * 1000,
        stream: () => {
          const socket: Socket = connectTcp({ host: reach.host, port: reach.port });
          // The name Node checks the certificate against when it has no server name (an IP host).
          (socket as Socket & { _host?: string })._host = endpoint.host;
          return socket;
        },
        // BIGINT beyond 2^53 as a string rather than a rounded number; DATETIME read as UTC.
        supportBigNumbers: true,
        timezone: 'Z',
      };
      try {
        const connection = await mysql.createConnection(options);
        // A connection that breaks between statements is reported by the next one; without a
        // listener the 'error' event would end the process.
        events(connection).on('error', (error: unknown) =>
          context.log.debug(`${target}: the connection failed (${firstLineOf(error)}); the next query reconnects`),
        );
        return connection;
      } catch (error) {
        throw tunnel?.takeFailure() ?? classifyMysqlError(error, failure) ?? unexpectedLoginFailure(error, failure);
      }
    };

    let session: Promise<Connection> | undefined;
    const connected = (): Promise<Connection> => {
      session ??= open().then(
        (connection) => {
          // Forgotten once the server closes it: the next query logs in again.
          events(connection).once('end', () => (session = undefined));
          return connection;
        },
        (error: unknown) => {
          session = undefined;
          throw error;
        },
      );
      return session;
    };

    return {
      target,
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        await credential.prepare?.();
        const connection = await open();
        try {
          await connection.query('SELECT 1');
        } catch (error) {
          throw classifyMysqlError(error, failure) ?? unexpectedLoginFailure(error, failure);
        } finally {
          await connection.end().catch(() => undefined);
        }
        return { target, outcome: 'SELECT 1', elapsedMs: performance.now() - started };
      },
      async query<Row extends MysqlRow>(sql: string, values?: unknown[]): Promise<Row[]> {
        const connection = await connected();
        try {
          const [rows] = await connection.query(sql, values);
          return rows as Row[];
        } catch (error) {
          if (isSqlStatementError(error)) throw error;
          session = undefined;
          throw classifyMysqlError(error, failure) ?? error;
        }
      },
      async close() {
        const open = session;
        session = undefined;
        await open?.then((c) => c.end()).catch(() => undefined);
        await tunnel?.close();
        await credential.close?.();
      },
    };
  },
});

/** mysql2's promise connection passes its connection's 'error' and 'end' on, though its types do not say so. */
function events(connection: Connection): EventEmitter {
  return connection as unknown as EventEmitter;
}
