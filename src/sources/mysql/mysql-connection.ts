import type { EventEmitter } from 'node:events';
import { connect as connectTcp, type Socket } from 'node:net';
import type { Connection, ConnectionOptions } from 'mysql2/promise';
import type { Credential } from '../../auth/index.js';
import type { Logger } from '../../log/index.js';
import { firstLineOf, type SshTunnel } from '../../network/index.js';
import type { ProbeResult } from '../source-definition.js';
import {
  classifyMysqlError,
  isSqlStatementError,
  unexpectedLoginFailure,
  type MysqlFailureContext,
} from './classify-mysql-error.js';
import type { MysqlLoginSecret } from './login-secret.js';
import type { MysqlRow, MysqlSource } from './mysql-queries.js';
import type { MysqlEndpoint } from './mysql-settings.js';
import type { MysqlSslOptions } from './mysql-tls.js';

/** What `connect` settled from the configuration: everything the connection needs but the network. */
export interface MysqlConnectionSettings {
  endpoint: MysqlEndpoint;
  /** The endpoint, and the bastion it is reached through. */
  target: string;
  credential: Credential;
  login: MysqlLoginSecret;
  /** Undefined: no TLS (mysql_tls=disabled). */
  ssl: MysqlSslOptions | undefined;
  timeoutSeconds: number;
  failure: MysqlFailureContext;
  tunnel: SshTunnel | undefined;
  log: Logger;
  /** mysql2's promise API, imported by `connect`. */
  mysql: { createConnection(options: ConnectionOptions): Promise<Connection> };
}

/**
 * One database as update() holds it. Its life: made by `connect` with no network; the probe logs in
 * on a connection of its own and ends it; the first `query` opens the connection statements share,
 * opened again after the server drops it; `close` ends it, then the tunnel and the credential.
 */
export class MysqlConnection implements MysqlSource {
  readonly target: string;
  #session: Promise<Connection> | undefined;

  /** `#`, not `private`: a connector that logs its source shows none of this (TLS keys, the credential). */
  readonly #settings: MysqlConnectionSettings;

  constructor(settings: MysqlConnectionSettings) {
    this.#settings = settings;
    this.target = settings.target;
  }

  probe = async (): Promise<ProbeResult> => {
    const { credential, failure } = this.#settings;
    const started = performance.now();
    await credential.prepare?.();
    const connection = await this.open();
    try {
      await connection.query('SELECT 1');
    } catch (error) {
      throw classifyMysqlError(error, failure) ?? unexpectedLoginFailure(error, failure);
    } finally {
      await connection.end().catch(() => undefined);
    }
    return { target: this.target, outcome: 'SELECT 1', elapsedMs: performance.now() - started };
  };

  query = async <Row extends MysqlRow>(sql: string, values?: unknown[]): Promise<Row[]> => {
    const connection = await this.connected();
    try {
      const [rows] = await connection.query(sql, values);
      return rows as Row[];
    } catch (error) {
      if (isSqlStatementError(error)) throw error;
      this.#session = undefined;
      throw classifyMysqlError(error, this.#settings.failure) ?? error;
    }
  };

  close = async (): Promise<void> => {
    const open = this.#session;
    this.#session = undefined;
    await open?.then((c) => c.end()).catch(() => undefined);
    await this.#settings.tunnel?.close();
    await this.#settings.credential.close?.();
  };

  /** The shared connection, or one being opened; forgotten when it fails to open or the server ends it. */
  private connected(): Promise<Connection> {
    this.#session ??= this.open().then(
      (connection) => {
        // Forgotten once the server closes it: the next query logs in again.
        events(connection).once('end', () => (this.#session = undefined));
        return connection;
      },
      (error: unknown) => {
        this.#session = undefined;
        throw error;
      },
    );
    return this.#session;
  }

  /** One login: the socket (direct or through the tunnel), a fresh password, mysql2's handshake. */
  private async open(): Promise<Connection> {
    const { tunnel, failure, log } = this.#settings;
    const options = await this.connectionOptions();
    try {
      const connection = await this.#settings.mysql.createConnection(options);
      // A connection that breaks between statements is reported by the next one; without a
      // listener the 'error' event would end the process.
      events(connection).on('error', (error: unknown) =>
        log.debug(`${this.target}: the connection failed (${firstLineOf(error)}); the next query reconnects`),
      );
      return connection;
    } catch (error) {
      throw tunnel?.takeFailure() ?? classifyMysqlError(error, failure) ?? unexpectedLoginFailure(error, failure);
    }
  }

  private async connectionOptions(): Promise<ConnectionOptions> {
    const { endpoint, tunnel, login, ssl, timeoutSeconds } = this.#settings;
    const reach = tunnel ? await tunnel.open() : endpoint;
    return {
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
  }
}

/** mysql2's promise connection passes its connection's 'error' and 'end' on, though its types do not say so. */
function events(connection: Connection): EventEmitter {
  return connection as unknown as EventEmitter;
}
