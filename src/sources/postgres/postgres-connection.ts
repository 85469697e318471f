import type { Client, ClientConfig, Pool } from 'pg';
import type { Credential } from '../../auth/index.js';
import { isConnectorAuthError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { firstLineOf, type SshTunnel } from '../../network/index.js';
import type { ProbeResult } from '../source-definition.js';
import {
  classifyPostgresError,
  isSqlStatementError,
  unexpectedLoginFailure,
  type PostgresFailureContext,
} from './classify-postgres-error.js';
import type { PostgresEndpoint } from './connection-settings.js';
import { POOL_SIZE, type PostgresSource, type QueryRow } from './postgres-queries.js';

/** What `connect` settled from the configuration: everything the connection needs but the network. */
export interface PostgresConnectionSettings {
  endpoint: PostgresEndpoint;
  /** The endpoint, and the bastion it is reached through. */
  target: string;
  credential: Credential;
  /** Every connection parameter pg gets, the password a function asked at each login. */
  clientConfig: ClientConfig;
  failure: PostgresFailureContext;
  tunnel: SshTunnel | undefined;
  log: Logger;
  /** pg's Pool class, imported by `connect`. */
  Pool: typeof Pool;
  /** pg's Client, or one that logs in by GSSAPI with a Kerberos credential (gss-login.ts). */
  PgClient: typeof Client;
}

/**
 * One database as update() holds it. Its life: made by `connect` with no network; the probe opens
 * one connection and no pool; the first `query` builds the pool (at most POOL_SIZE connections);
 * `close` ends the pool, then the tunnel and the credential.
 */
export class PostgresConnection implements PostgresSource {
  readonly target: string;
  readonly sslmode: PostgresSource['sslmode'];
  #pool: Pool | undefined;

  /** `#`, not `private`: a connector that logs its source shows none of this (TLS keys, the credential). */
  readonly #settings: PostgresConnectionSettings;

  constructor(settings: PostgresConnectionSettings) {
    this.#settings = settings;
    this.target = settings.target;
    this.sslmode = settings.endpoint.sslmode;
  }

  probe = async (): Promise<ProbeResult> => {
    const started = performance.now();
    await this.#settings.credential.prepare?.();
    const client = new this.#settings.PgClient(await this.reach());
    // A connection that breaks after the login is reported by the pending call; without a
    // listener the 'error' event would end the process.
    client.on('error', () => undefined);
    let connected = false;
    try {
      await client.connect();
      connected = true;
      await client.query('SELECT 1');
    } catch (error) {
      const classified = await this.classify(error);
      throw classified === error && !isConnectorAuthError(error)
        ? unexpectedLoginFailure(error, this.#settings.failure)
        : classified;
    } finally {
      // After a failed login pg's end() may wait for an 'end' its socket already emitted (a server
      // that refused the client certificate with a TLS alert and closed at once): the verdict is
      // known, so the client is told to end but not waited for.
      const ending = client.end().catch(() => undefined);
      if (connected) await ending;
    }
    return { target: this.target, outcome: 'SELECT 1', elapsedMs: performance.now() - started };
  };

  query = async <Row extends QueryRow>(text: string, values?: unknown[]): Promise<Row[]> => {
    try {
      return (await (await this.openPool()).query<Row>(text, values)).rows;
    } catch (error) {
      if (isSqlStatementError(error)) throw error;
      throw await this.classify(error);
    }
  };

  close = async (): Promise<void> => {
    const open = this.#pool;
    this.#pool = undefined;
    await open?.end();
    await this.#settings.tunnel?.close();
    await this.#settings.credential.close?.();
  };

  /** Where pg connects: the server, or the tunnel's listener (opened, with the bastion login, on first use). */
  private async reach(): Promise<ClientConfig> {
    const { tunnel, clientConfig, failure } = this.#settings;
    if (!tunnel) return clientConfig;
    const local = await tunnel.open();
    failure.via = local;
    return { ...clientConfig, ...local };
  }

  /** A failure of the tunnel explains a connection that broke; otherwise pg's error is classified. */
  private async classify(error: unknown): Promise<unknown> {
    return this.#settings.tunnel?.takeFailure() ?? classifyPostgresError(error, this.#settings.failure);
  }

  private async openPool(): Promise<Pool> {
    if (this.#pool) return this.#pool;
    const config = await this.reach();
    if (this.#pool) return this.#pool;
    const pool = new this.#settings.Pool({
      ...config,
      Client: this.#settings.PgClient,
      max: POOL_SIZE,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    // An idle connection the server drops must not take the process down; the next query reconnects.
    pool.on('error', (error) =>
      this.#settings.log.warning(
        `${this.target}: an idle pooled connection failed (${firstLineOf(error)}); it will be replaced`,
      ),
    );
    this.#pool = pool;
    return pool;
  }
}
