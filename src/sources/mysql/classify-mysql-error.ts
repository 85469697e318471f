import {
  AuthenticationError,
  ConfigurationError,
  SourceIdentityError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import {
  CLIENT_CERTIFICATE_ALERT,
  certificateForAnotherHost,
  untrustedCertificate,
  causeChain,
  clientCertificateRefused,
  oneLine,
  type TlsSettings,
} from '../../network/index.js';
import type { MysqlLoginSecret } from './login-secret.js';
import { classifyUnlessOurs } from '../classify-failure.js';
import { closedDuringLogin, noAnswerInTime, socketFailure } from '../unreachable-errors.js';
import { describeEndpoint, type MysqlEndpoint } from './mysql-settings.js';

/**
 * What a failed MySQL or MariaDB login means, as one of the project's errors, like the postgres
 * source's: a wrong password or token is exit 3 naming its key, a server that cannot be reached
 * exit 4, a certificate that is not trusted exit 5. The server's errors are read by their number
 * (MySQL's error codes, the same in MariaDB); mysql2's own by its code. Neither carries a password.
 *
 * mysql2 reports a refused TLS handshake as HANDSHAKE_SSL_ERROR with Node's message but not Node's
 * code, so the certificate failures are recognised by Node's fixed messages.
 */

export interface MysqlFailureContext {
  endpoint: MysqlEndpoint;
  /** "password auth as 'alice'": the credential's description. */
  credential: string;
  login: MysqlLoginSecret;
  tls: TlsSettings;
  timeoutSeconds: number;
}

type MysqlError = Error & {
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  sqlMessage?: unknown;
  fatal?: unknown;
};

/** Node's messages for a chain it does not trust (its codes: UNTRUSTED_CERTIFICATE_CODES). */
const UNTRUSTED =
  /self[- ]signed certificate|unable to (verify the first certificate|get local issuer certificate|get issuer certificate)|certificate has expired|certificate is not yet valid|certificate signature failure|certificate not trusted/i;
const HOST_MISMATCH = /Hostname\/IP does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/i;

export function classifyMysqlError(error: unknown, context: MysqlFailureContext): ConnectorAuthError | undefined {
  const where = describeEndpoint(context.endpoint);
  return classifyUnlessOurs(error, { description: context.credential }, where, (target) => {
    const chain = causeChain(error);
    const e = (chain[0] ?? {}) as MysqlError;
    if (typeof e.errno === 'number' && typeof e.sqlState === 'string')
      return fromServer(e.errno, serverMessage(e), target, context);
    return fromConnection(chain, target, context);
  });
}

/**
 * The server's answer to the login: 1045 wrong credential, 1044/1130 not allowed, 1049 no such
 * database. 1698 is the credential refused too, by an authentication plugin that takes no password
 * hash (MariaDB with auth_pam loaded answers it for an unknown user; MySQL's auth_socket for the
 * wrong one).
 */
function fromServer(
  errno: number,
  message: string,
  target: string,
  context: MysqlFailureContext,
): ConnectorAuthError | undefined {
  const { user, database } = context.endpoint;
  switch (errno) {
    case 1045:
    case 1698:
      return loginRejected(errno, message, target, context);
    case 1044:
      // Said for a database that does not exist too, to an account without global privileges.
      return new AuthenticationError(
        `${target} failed: user '${user}' may not use database '${database}' (error 1044)`,
        {
          code: 'mysql_database_denied',
          key: 'database',
          hint: `check 'database' (the server answers the same when it does not exist), or grant '${user}' privileges on it`,
        },
      );
    case 1049:
      return new ConfigurationError(`${target} failed: database '${database}' does not exist (error 1049)`, {
        code: 'mysql_database_missing',
        key: 'database',
        hint: `check 'database', or create the database`,
      });
    case 1130:
      return new AuthenticationError(`${target} failed: the server does not let this host connect (error 1130)`, {
        code: 'mysql_host_not_allowed',
        key: 'user',
        hint: `ask the database administrator for an account '${user}'@'<this host>' (or '%')`,
      });
    case 3159:
      return new ConfigurationError(`${target} failed: the server accepts only TLS connections (error 3159)`, {
        code: 'mysql_tls_required',
        key: 'mysql_tls',
        hint: "set 'mysql_tls' to required (the default), with 'tls_ca_certificate' if the server's CA is private",
      });
    case 1040:
    case 1129:
      return new SourceUnreachableError(
        `${target} failed: the server cannot take the connection now (error ${errno}: ${message})`,
        {
          code: errno === 1040 ? 'mysql_too_many_connections' : 'mysql_host_blocked',
          key: 'host',
          hint: 'the server is out of connections or has blocked this host after errors: try later, or ask its administrator',
        },
      );
    default:
      return undefined;
  }
}

/** Errors 1045 and 1698: what the login sent was refused (a password, a token, or no password with a client certificate). */
function loginRejected(
  errno: number,
  message: string,
  target: string,
  context: MysqlFailureContext,
): ConnectorAuthError {
  const { user } = context.endpoint;
  const { login } = context;
  if (login.kind === 'none')
    return clientCertificateRefused(
      target,
      `at login for user '${user}' (error ${errno}: ${message})`,
      context.tls.clientCertificate,
    );
  const what =
    login.kind === 'password'
      ? 'the password'
      : login.kind === 'iam_token'
        ? 'the IAM database token'
        : 'the access token given as the password';
  const hint =
    login.kind === 'password'
      ? `check 'password', and that 'user' names an existing account: the server answers the same for an unknown user`
      : login.kind === 'iam_token'
        ? login.aws?.sessionKey
          ? `the policies of ${login.aws.signer} must allow rds-db:connect for user '${user}', created IDENTIFIED WITH AWSAuthenticationPlugin; check 'aws_region' too`
          : `check 'aws_access_key_id', 'aws_secret_access_key' and 'aws_region'; the key's IAM policy must allow rds-db:connect for user '${user}'`
        : `check '${login.rejectedKey}' (the token must be for the database service), and that 'user' is the database user of this identity`;
  return new AuthenticationError(`${target} failed: the server rejected ${what} for user '${user}' (error ${errno})`, {
    code: `mysql_${login.kind === 'password' ? 'password' : 'token'}_rejected`,
    key: login.rejectedKey,
    hint,
  });
}

/** Nothing listens, a timeout, TLS that fails or is refused, a plugin that would send the password in clear. */
function fromConnection(
  chain: unknown[],
  target: string,
  context: MysqlFailureContext,
): ConnectorAuthError | undefined {
  const { timeoutSeconds } = context;
  const codes = chain.map((e) => String((e as { code?: unknown }).code ?? ''));
  const messages = chain.map((e) => (e instanceof Error ? e.message : ''));
  const cause = chain[0];
  if (codes.includes('ETIMEDOUT') || messages.some((m) => /connect ETIMEDOUT|timed? ?out/i.test(m))) {
    return noAnswerInTime(target, timeoutSeconds, cause);
  }
  if (codes.includes('HANDSHAKE_NO_SSL_SUPPORT')) {
    return new SourceIdentityError(`${target} failed: the server does not accept TLS connections`, {
      code: 'mysql_tls_not_supported',
      key: 'mysql_tls',
      hint: `turn TLS on at the server; set 'mysql_tls' to none only if the whole network path is trusted`,
      cause,
    });
  }
  if (codes.includes('MYSQL_CLEAR_PASSWORD_NOT_ENABLED')) {
    return new ConfigurationError(
      `${target} failed: the server asks for the password in clear text (mysql_clear_password), and the connection is not encrypted`,
      {
        code: 'mysql_cleartext_without_tls',
        key: 'mysql_tls',
        hint: "set 'mysql_tls' to required: the cleartext plugin is used only inside TLS",
        cause,
      },
    );
  }
  const identity = fromTlsIdentity(codes, messages, target, context, cause);
  if (identity) return identity;
  const socket = socketFailure(codes, target, 'MySQL or MariaDB is running and accepts TCP connections', cause);
  if (socket) return socket;
  if (codes.some((c) => /^PROTOCOL_/.test(c)) || codes.includes('HANDSHAKE_SSL_ERROR'))
    return closedDuringLogin(target, 'mysql_connection_closed', 'a MySQL or MariaDB server', cause);
  return undefined;
}

/** The server's certificate (another host's, or not trusted), or the server refusing ours. */
function fromTlsIdentity(
  codes: string[],
  messages: string[],
  target: string,
  context: MysqlFailureContext,
  cause: unknown,
): ConnectorAuthError | undefined {
  const { endpoint, tls } = context;
  if (messages.some((m) => HOST_MISMATCH.test(m))) return certificateForAnotherHost(target, endpoint.host, cause);
  const untrusted = messages.find((m) => UNTRUSTED.test(m));
  if (untrusted) return untrustedCertificate(target, UNTRUSTED.exec(untrusted)![0].toLowerCase(), cause);
  const alert = [...codes, ...messages]
    .map((c) => CLIENT_CERTIFICATE_ALERT.exec(c.toUpperCase().replace(/ /g, '_'))?.[0])
    .find(Boolean);
  if (alert)
    return clientCertificateRefused(target, `during the TLS handshake (${alert})`, tls.clientCertificate, cause);
  return undefined;
}

/** Any other failure of the login, on one line: still the source's (exit 4). */
export function unexpectedLoginFailure(error: unknown, context: MysqlFailureContext): SourceUnreachableError {
  const target = `${context.credential}: ${describeEndpoint(context.endpoint)}`;
  const e = (error ?? {}) as MysqlError;
  const what = firstLine(
    typeof e.sqlMessage === 'string' ? e.sqlMessage : e instanceof Error ? e.message : String(error),
  );
  return new SourceUnreachableError(
    `${target} failed: ${what}${typeof e.errno === 'number' ? ` (error ${e.errno})` : ''}`,
    {
      code: typeof e.errno === 'number' ? `mysql_${e.errno}` : 'mysql_error',
      key: 'host',
      hint: `check 'host', 'port' and 'database', and the server's log`,
      cause: error,
    },
  );
}

/** True for an error of the statement itself (a syntax error, a constraint): the connector's, not the connection's. */
export function isSqlStatementError(error: unknown): boolean {
  const e = (error ?? {}) as MysqlError;
  return typeof e.errno === 'number' && typeof e.sqlState === 'string' && e.fatal !== true;
}

function serverMessage(e: MysqlError): string {
  return firstLine(typeof e.sqlMessage === 'string' ? e.sqlMessage : e.message);
}

/** The server's words on one line, redacted before they are shaped. */
function firstLine(text: string): string {
  return oneLine(text, 300) ?? '';
}
