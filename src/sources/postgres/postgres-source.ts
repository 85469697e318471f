import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { ClientConfig } from 'pg';
import { z } from 'zod';
import type { Credential } from '../../auth/index.js';
import { keys } from '../../config/index.js';
import { importOptionalPackage } from '../../errors/index.js';
import { prepareSshTunnel, sshTunnelKeys, type SshTunnel } from '../../network/index.js';
import { defineSource, type SourceContext } from '../source-definition.js';
import type { PostgresFailureContext } from './classify-postgres-error.js';
import { columnValueTypes } from './column-values.js';
import { SSL_MODES, describeEndpoint, tlsOptionsFor, type PostgresEndpoint } from './connection-settings.js';
import { clientClassFor } from './gss-login.js';
import { PostgresConnection } from './postgres-connection.js';
import type { PostgresSource } from './postgres-queries.js';
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

export type { PostgresSource, QueryRow } from './postgres-queries.js';
export { POOL_SIZE } from './postgres-queries.js';

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
    const ssl = sslThrough(tunnel, endpoint, tlsOptionsFor(endpoint, tls, credential, context.log));
    const failure: PostgresFailureContext = { endpoint, credential, tls, timeoutSeconds };
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const pg = (await importOptionalPackage('pg', "source 'postgres'", () => import('pg'))).default;
    // pg's Client, or one that logs in by GSSAPI with a Kerberos credential (gss-login.ts).
    const PgClient = clientClassFor(pg, credential, endpoint);
    const password = await passwordOf(credential, endpoint, context);
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
    return new PostgresConnection({
      endpoint,
      target,
      credential,
      clientConfig,
      failure,
      tunnel,
      log: context.log,
      Pool: pg.Pool,
      PgClient,
    });
  },
});

/** Through a tunnel pg's host is 127.0.0.1: the certificate must still name the real host. */
function sslThrough(
  tunnel: SshTunnel | undefined,
  endpoint: PostgresEndpoint,
  direct: ConnectionOptions | false,
): ConnectionOptions | false {
  if (!direct || !tunnel) return direct;
  return { ...direct, host: endpoint.host, ...(isIP(endpoint.host) ? {} : { servername: endpoint.host }) };
}

/**
 * The password: the configured one, a cloud access token (Cloud SQL IAM login, Entra ID for Azure
 * Database for PostgreSQL) fresh from the credential's token cache at each login, or an IAM database
 * token (RDS, Aurora) signed at each login.
 */
async function passwordOf(
  credential: Credential,
  endpoint: PostgresEndpoint,
  context: SourceContext,
): Promise<() => Promise<string | undefined>> {
  const { password: configured, bearerToken, awsKeys } = credential;
  if (configured) return async () => configured.read();
  if (bearerToken) return () => bearerToken.read();
  if (awsKeys) return rdsAuthTokens(awsKeys, endpoint, rdsRegion(endpoint.host, awsKeys.region), context.secrets);
  return async () => undefined;
}
