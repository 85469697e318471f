import type { Credential } from '../../auth/index.js';
import {
  AuthenticationError,
  ConfigurationError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import { causeChain, clientCertificateRefused, type TlsSettings } from '../../network/index.js';
import { secrets } from '../../secrets/index.js';
import { classifyUnlessOurs } from '../classify-failure.js';
import { fromConnectionFailure } from './classify-postgres-connection.js';
import { describeEndpoint, loginCapability, type PostgresEndpoint } from './connection-settings.js';

/**
 * What a failed PostgreSQL login means, as one of the project's errors: a line naming the method,
 * the server and what failed, and the key to fix. Server messages are read for their SQLSTATE and a
 * few fixed phrases of pg_hba.conf; they name users and databases, never a password, and pg puts no
 * password in its own errors.
 *
 * Errors of the SQL a connector runs (a syntax error, a constraint) are not about the connection:
 * they are returned unchanged, and the runner reports them as the connector's (exit 1).
 */

export interface PostgresFailureContext {
  endpoint: PostgresEndpoint;
  credential: Credential;
  tls: TlsSettings;
  timeoutSeconds: number;
  /** The SSH tunnel's listener, when pg connects through one: where a look at the certificate goes too. */
  via?: { host: string; port: number };
}

export async function classifyPostgresError(error: unknown, context: PostgresFailureContext): Promise<unknown> {
  return classifyUnlessOurs(error, context.credential, describeEndpoint(context.endpoint), async (target) => {
    const chain = causeChain(error);
    const sqlState = chain.map(sqlStateOf).find(Boolean);
    if (sqlState) return fromSqlState(sqlState, serverMessage(chain), target, context) ?? error;
    return (await fromConnectionFailure(chain, target, context)) ?? error;
  });
}

/** Class 28 (authorization), 3D000 (no such database) and the refusals that happen at login. */
function fromSqlState(
  state: string,
  message: string,
  target: string,
  context: PostgresFailureContext,
): ConnectorAuthError | undefined {
  const { user, database } = context.endpoint;
  switch (state) {
    case '28P01':
      return loginRejected(target, context);
    case '28000':
      return invalidAuthorization(message, target, context);
    case '3D000':
      return new ConfigurationError(`${target} failed: database '${database}' does not exist (SQLSTATE 3D000)`, {
        code: 'postgres_database_missing',
        key: 'database',
        hint: `check 'database' (names are case-sensitive), or create the database`,
      });
    case '42501':
      return new AuthenticationError(
        `${target} failed: user '${user}' may not connect to database '${database}' (SQLSTATE 42501, missing CONNECT privilege)`,
        {
          code: 'postgres_connect_denied',
          key: 'user',
          hint: `grant CONNECT on database '${database}' to '${user}', or use a 'user' that has it`,
        },
      );
    case '53300':
    case '57P03':
      return new SourceUnreachableError(
        `${target} failed: the server cannot take the connection now (SQLSTATE ${state}: ${message})`,
        {
          code: state === '53300' ? 'postgres_too_many_connections' : 'postgres_not_ready',
          key: 'host',
          hint: 'the server is starting up, shutting down or out of connection slots: try again later, or ask its administrator',
        },
      );
    default:
      return undefined;
  }
}

/** SQLSTATE 28P01: what the login sent as its password (a password, an IAM token, an access token) was refused. */
function loginRejected(target: string, context: PostgresFailureContext): ConnectorAuthError {
  const { user } = context.endpoint;
  const login = loginCapability(context.credential);
  if (login === 'awsKeys' && context.credential.awsKeys) {
    // An IAM database token (RDS, Aurora: "PAM authentication failed"): signed with the wrong key or
    // region, or not allowed by IAM, or for a role the database does not let log in by IAM.
    const { sessionKey, signer } = context.credential.awsKeys;
    return new AuthenticationError(
      `${target} failed: the server rejected the IAM database token for user '${user}' (SQLSTATE 28P01)`,
      {
        code: 'postgres_iam_token_rejected',
        key: sessionKey ?? 'aws_secret_access_key',
        hint: sessionKey
          ? `the policies of ${signer} must allow rds-db:connect for user '${user}', and the database role must be granted rds_iam; check 'aws_region' too`
          : `check 'aws_access_key_id', 'aws_secret_access_key' and 'aws_region'; the key's IAM policy must allow rds-db:connect for user '${user}', and the role must be granted rds_iam`,
      },
    );
  }
  if (login === 'bearerToken') {
    // The password was an access token (Cloud SQL IAM login, Entra ID; postgres-source.ts picks it
    // the same way): the usual causes are a token for another audience or a role that is not the identity's.
    const key = context.credential.rejectedKey;
    return new AuthenticationError(
      `${target} failed: the server rejected the access token given as the password for user '${user}' (SQLSTATE 28P01)`,
      {
        code: 'postgres_token_rejected',
        key,
        hint: `check '${key}' (the token must be for the database service), and that 'user' is the database role of this identity`,
      },
    );
  }
  return new AuthenticationError(
    `${target} failed: the server rejected the password for user '${user}' (SQLSTATE 28P01)`,
    {
      code: 'postgres_password_rejected',
      key: 'password',
      hint: `check 'password', and that 'user' names an existing role: PostgreSQL answers the same for an unknown user`,
    },
  );
}

/** 28000 is pg_hba.conf's (or a role's) "no": which key to fix depends on the phrase. */
function invalidAuthorization(message: string, target: string, context: PostgresFailureContext): ConnectorAuthError {
  const { user, database, sslmode } = context.endpoint;
  if (/no pg_hba\.conf entry .*no encryption/i.test(message)) {
    return new AuthenticationError(
      `${target} failed: the server accepts only encrypted connections from this host (no pg_hba.conf entry without TLS; SQLSTATE 28000)`,
      {
        code: 'postgres_encryption_required',
        key: 'sslmode',
        hint: `set 'sslmode' to verify-full (with 'tls_ca_certificate' if the server's CA is private) instead of ${sslmode}`,
      },
    );
  }
  if (/requires a valid client certificate/i.test(message)) {
    return clientCertificateRefused(
      target,
      `at login for user '${user}' (SQLSTATE 28000)`,
      context.tls.clientCertificate,
    );
  }
  if (/certificate authentication failed/i.test(message)) {
    const refused = clientCertificateRefused(
      target,
      `at login: its common name does not authenticate user '${user}' (SQLSTATE 28000)`,
      context.tls.clientCertificate,
    );
    return new AuthenticationError(refused.message, {
      code: refused.code,
      key: refused.key ?? 'tls_client_certificate',
      hint: `the certificate's common name must be '${user}' (or mapped to it in pg_ident.conf); check 'user' and '${refused.key ?? 'tls_client_certificate'}'`,
    });
  }
  if (/GSSAPI authentication failed/i.test(message)) {
    // The ticket reached the server, which did not accept it for this user: the principal is not
    // the role (nor mapped to it in pg_ident.conf), or the server's own keytab is not current.
    return new AuthenticationError(
      `${target} failed: the server did not accept the Kerberos ticket for user '${user}' (SQLSTATE 28000)`,
      {
        code: 'postgres_gss_rejected',
        key: 'kerberos_principal',
        hint: `the principal's name must be the role '${user}' (or mapped to it in pg_ident.conf); else the server's keytab is stale (see its log)`,
      },
    );
  }
  if (/not permitted to log in/i.test(message)) {
    return new AuthenticationError(`${target} failed: role '${user}' is not permitted to log in (SQLSTATE 28000)`, {
      code: 'postgres_login_not_permitted',
      key: 'user',
      hint: `use a 'user' with the LOGIN attribute, or ALTER ROLE ... LOGIN`,
    });
  }
  return new AuthenticationError(
    `${target} failed: the server does not let user '${user}' connect to database '${database}' from this host (pg_hba.conf; SQLSTATE 28000)`,
    {
      code: 'postgres_connection_not_allowed',
      key: 'user',
      hint: `check 'user' and 'database', or ask the database administrator for a pg_hba.conf entry that admits them from this host`,
    },
  );
}

/**
 * An error of the login that none of the rules above knows: still the source's fault (exit 4), said
 * on one line. Used by the probe, where every failure is about reaching and logging in.
 */
export function unexpectedLoginFailure(error: unknown, context: PostgresFailureContext): SourceUnreachableError {
  const target = `${context.credential.description}: ${describeEndpoint(context.endpoint)}`;
  const chain = causeChain(error);
  const state = chain.map(sqlStateOf).find(Boolean);
  const what = firstLine(serverMessage(chain) || (error instanceof Error ? error.message : String(error)));
  return new SourceUnreachableError(`${target} failed: ${what}${state ? ` (SQLSTATE ${state})` : ''}`, {
    code: state ? `postgres_${state.toLowerCase()}` : 'postgres_error',
    key: 'host',
    hint: `check 'host', 'port' and 'database', and the server's log`,
    cause: error,
  });
}

/** True for errors about the connection rather than the statement: worth classifying in query(). */
export function isSqlStatementError(error: unknown): boolean {
  const state = causeChain(error).map(sqlStateOf).find(Boolean);
  return state !== undefined && !/^(08|28|3D|53|57P)/.test(state);
}

function sqlStateOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; severity?: unknown };
  return typeof e?.code === 'string' && typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(e.code)
    ? e.code
    : undefined;
}

function serverMessage(chain: unknown[]): string {
  const found = chain.find((e) => sqlStateOf(e));
  return found instanceof Error ? firstLine(found.message) : '';
}

/** The server's first line, redacted before it is cut (redact first, then shape). */
function firstLine(text: string): string {
  const line = secrets.redact(text).split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
