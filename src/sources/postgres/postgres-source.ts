import { isIP } from 'node:net';
import type { ClientConfig, Pool } from 'pg';
import { z } from 'zod';
import { keys } from '../../config/index.js';
import { importOptionalPackage, isConnectorAuthError } from '../../errors/index.js';
import { firstLineOf, prepareSshTunnel, sshTunnelKeys } from '../../network/index.js';
import { defineSource, type ConnectedSource, type ProbeResult } from '../source-definition.js';
import { columnValueTypes } from './column-values.js';
import {
  classifyPostgresError,
  isSqlStatementError,
  unexpectedLoginFailure,
  type PostgresFailureContext,
} from './classify-postgres-error.js';
import {
  SSL_MODES,
  describeEndpoint,
  tlsOptionsFor,
  type PostgresEndpoint,
  type SslMode,
} from './connection-settings.js';
import { clientClassFor } from './gss-login.js';
import { rdsAuthTokens, rdsRegion } from './rds-auth-token.js';

/**
 * A PostgreSQL database, through `pg`. The probe is one connection and `SELECT 1`: it proves the
 * server is reachable, its certificate trusted (per sslmode) and the credentials accepted, and opens
 * nothing that lasts. `query` is what a connector's update() uses: a small pool (at most
 * POOL_SIZE connections), created on the first query, so a run that only probes never builds one.
 *
 * With `ssh_tunnel_host`, every connection goes through an SSH tunnel (network/ssh-tunnel.ts): pg
 * connects to the tunnel's 127.0.0.1 listener, and TLS still checks the certificate against the real
 * `host` (pg would otherwise check it against 127.0.0.1).
 *
 * The password is the configured one, a cloud access token (Cloud SQL IAM login, Entra ID), or, with
 * AWS credentials (a key, or a role's session), an IAM database token for RDS and Aurora signed at each login (rds-auth-token.ts).
 *
 * Every connection parameter is passed explicitly: pg would otherwise fill gaps from PG* environment
 * variables and ~/.pgpass, and a run would depend on the machine it runs on.
 */

/**
 * A row as pg gives it (pg's QueryResultRow, spelled here so that our declarations need no @types/pg:
 * a user's type check must stand on what they install).
 */
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

const postgresKeys = z.object({
  host: keys.text(),
  port: keys.integer({ min: 1, max: 65535, default: 5432 }),
  database: keys.text(),
  user: keys.text(),
  sslmode: keys.oneOf(SSL_MODES, 'verify-full'),
  ...sshTunnelKeys.shape,
});

export default defineSource({
  name: 'postgres',
  tls: true,
  summary:
    'PostgreSQL: password (SCRAM), client certificate or a cloud access token, TLS per sslmode; probe = one connection and SELECT 1',
  keys: postgresKeys,
  // The login: a password, a cloud access token in its place, an IAM database token signed with AWS
  // keys, a client certificate alone (a pg_hba.conf `cert` entry), or a Kerberos ticket (`gss`).
  needs: ['password', 'bearerToken', 'awsKeys', 'clientCertificate', 'kerberos'],
  async connect(k, credential, context): Promise<PostgresSource> {
    const endpoint: PostgresEndpoint = {
      host: k.host.trim(),
      port: k.port,
      user: k.user,
      database: k.database,
      sslmode: k.sslmode,
    };
    const tls = await context.tls.read();
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(
      k,
      { host: endpoint.host, port: endpoint.port },
      { timeoutSeconds, log: context.log, secrets: context.secrets },
    );
    const direct = tlsOptionsFor(endpoint, tls, credential, context.log);
    // Through a tunnel pg's host is 127.0.0.1: the certificate must still name the real host.
    const ssl =
      direct && tunnel
        ? { ...direct, host: endpoint.host, ...(isIP(endpoint.host) ? {} : { servername: endpoint.host }) }
        : direct;
    const failure: PostgresFailureContext = { endpoint, credential, tls, timeoutSeconds };
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const pg = (await importOptionalPackage('pg', "source 'postgres'", () => import('pg'))).default;
    // pg's Client, or one that logs in by GSSAPI with a Kerberos credential (gss-login.ts).
    const PgClient = clientClassFor(pg, credential, endpoint);

    // The password: the configured one, a cloud access token (Cloud SQL IAM login, Entra ID for
    // Azure Database for PostgreSQL) fresh from the credential's token cache at each login, or an
    // IAM database token (RDS, Aurora) signed at each login.
    const { password: configured, bearerToken, awsKeys } = credential;
    const password = configured
      ? async () => configured.read()
      : bearerToken
        ? () => bearerToken.read()
        : awsKeys
          ? await rdsAuthTokens(awsKeys, endpoint, rdsRegion(endpoint.host, awsKeys.region), context.secrets)
          : async () => undefined;
    const clientConfig: ClientConfig = {
      host: endpoint.host,
      port: endpoint.port,
      user: endpoint.user,
      database: endpoint.database,
      // A function, asked at each login: the password is never a property of pg's objects. Without a
      // password method it answers nothing, rather than letting pg read PGPASSWORD or ~/.pgpass.
      password: password as () => Promise<string>,
      ssl,
      // SCRAM-SHA-256-PLUS binds the login to the TLS session: a relay in the middle cannot reuse it.
      enableChannelBinding: ssl !== false,
      connectionTimeoutMillis: timeoutSeconds * 1000,
      application_name: 'connector-auth',
      keepAlive: true,
      // bigint as a number (or a BigInt beyond 2^53), so it lands as BIGINT: see column-values.ts.
      types: columnValueTypes(pg.types),
    };

    /** Where pg connects: the server, or the tunnel's listener (opened, with the bastion login, on first use). */
    const reach = async (): Promise<ClientConfig> => {
      if (!tunnel) return clientConfig;
      const local = await tunnel.open();
      failure.via = local;
      return { ...clientConfig, ...local };
    };
    /** A failure of the tunnel explains a connection that broke; otherwise pg's error is classified. */
    const classify = async (error: unknown): Promise<unknown> =>
      tunnel?.takeFailure() ?? classifyPostgresError(error, failure);

    let pool: Pool | undefined;
    const openPool = async (): Promise<Pool> => {
      if (pool) return pool;
      const config = await reach();
      if (pool) return pool;
      pool = new pg.Pool({
        ...config,
        Client: PgClient,
        max: POOL_SIZE,
        idleTimeoutMillis: 30_000,
        allowExitOnIdle: true,
      });
      // An idle connection the server drops must not take the process down; the next query reconnects.
      pool.on('error', (error) =>
        context.log.warning(`${target}: an idle pooled connection failed (${firstLineOf(error)}); it will be replaced`),
      );
      return pool;
    };

    return {
      target,
      sslmode: endpoint.sslmode,
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        await credential.prepare?.();
        const client = new PgClient(await reach());
        // A connection that breaks after the login is reported by the pending call; without a
        // listener the 'error' event would end the process.
        client.on('error', () => undefined);
        let connected = false;
        try {
          await client.connect();
          connected = true;
          await client.query('SELECT 1');
        } catch (error) {
          const classified = await classify(error);
          throw classified === error && !isConnectorAuthError(error)
            ? unexpectedLoginFailure(error, failure)
            : classified;
        } finally {
          // After a failed login pg's end() may wait for an 'end' its socket already emitted (a server
          // that refused the client certificate with a TLS alert and closed at once): the verdict is
          // known, so the client is told to end but not waited for.
          const ending = client.end().catch(() => undefined);
          if (connected) await ending;
        }
        return { target, outcome: 'SELECT 1', elapsedMs: performance.now() - started };
      },
      async query<Row extends QueryRow>(text: string, values?: unknown[]): Promise<Row[]> {
        try {
          return (await (await openPool()).query<Row>(text, values)).rows;
        } catch (error) {
          if (isSqlStatementError(error)) throw error;
          throw await classify(error);
        }
      },
      async close() {
        const open = pool;
        pool = undefined;
        await open?.end();
        await tunnel?.close();
        await credential.close?.();
      },
    };
  },
});
