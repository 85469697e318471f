import { AuthenticationError, SourceIdentityError, type ConnectorAuthError } from '../../errors/index.js';
import {
  CLIENT_CERTIFICATE_ALERT,
  certificateForAnotherHost,
  untrustedCertificate,
  HOST_MISMATCH_CODES,
  UNTRUSTED_CERTIFICATE_CODES,
  clientCertificateRefused,
  describeServerCertificate,
  type TlsSettings,
} from '../../network/index.js';
import type { PostgresEndpoint } from './connection-settings.js';
import { inspectServerCertificate } from './server-certificate.js';
import { closedDuringLogin, noAnswerInTime, socketFailure } from '../unreachable-errors.js';

/**
 * The failures of a PostgreSQL connection that carry no SQLSTATE, because the server never got to
 * answer with one: nothing listening, a timeout, TLS refused or untrusted, a client certificate
 * refused, a login the driver could not even attempt. Those with a SQLSTATE are
 * classify-postgres-error.ts's.
 */

/** What this classification reads of the attempt (classify-postgres-error.ts's PostgresFailureContext has it). */
export interface ConnectionAttempt {
  endpoint: PostgresEndpoint;
  credential: { method: string };
  tls: TlsSettings;
  timeoutSeconds: number;
  /** The SSH tunnel's listener, when pg connects through one: where a look at the certificate goes too. */
  via?: { host: string; port: number };
}

/** Nothing listens, a name that does not resolve, a timeout, TLS that fails or is refused. */
export async function fromConnectionFailure(
  chain: unknown[],
  target: string,
  context: ConnectionAttempt,
): Promise<ConnectorAuthError | undefined> {
  const { endpoint, timeoutSeconds } = context;
  const codes = chain.map((e) => String((e as { code?: unknown }).code ?? ''));
  const messages = chain.map((e) => (e instanceof Error ? e.message : ''));
  const cause = chain[0];

  if (messages.some((m) => /timeout expired|due to connection timeout/i.test(m))) {
    return noAnswerInTime(target, timeoutSeconds, cause);
  }
  if (messages.some((m) => /server does not support SSL connections/i.test(m))) {
    return new SourceIdentityError(
      `${target} failed: the server does not accept TLS connections, and sslmode=${endpoint.sslmode} requires TLS`,
      {
        code: 'postgres_tls_not_supported',
        key: 'sslmode',
        hint: `turn ssl on at the server; set 'sslmode' to disable only if the whole network path is trusted`,
        cause,
      },
    );
  }
  const certificate = await fromCertificates(chain, codes, target, context, cause);
  if (certificate) return certificate;
  const exchange = fromLoginExchange(messages, target, context, cause);
  if (exchange) return exchange;
  const socket = socketFailure(codes, target, 'PostgreSQL is running and accepts TCP connections', cause);
  if (socket) return socket;
  if (messages.some((m) => /Connection terminated|error establishing an SSL connection/i.test(m)))
    return closedDuringLogin(target, 'postgres_connection_closed', 'a PostgreSQL server', cause);
  return undefined;
}

/** The server's certificate (another host's, or not trusted: then looked at), or the server refusing ours. */
async function fromCertificates(
  chain: unknown[],
  codes: string[],
  target: string,
  context: ConnectionAttempt,
  cause: unknown,
): Promise<ConnectorAuthError | undefined> {
  const { endpoint, tls, timeoutSeconds } = context;
  if (codes.some((c) => HOST_MISMATCH_CODES.has(c)))
    return certificateForAnotherHost(target, endpoint.host, cause, {
      names: certificateNames(chain),
      caveat:
        'sslmode=verify-ca skips this check, so choose it only knowing that any server with a certificate from that CA would then pass',
    });
  const untrusted = codes.find((c) => UNTRUSTED_CERTIFICATE_CODES.has(c));
  if (untrusted) {
    const server = await inspectServerCertificate(
      endpoint.host,
      endpoint.port,
      tls,
      Math.min(timeoutSeconds * 1000, 5_000),
      context.via,
    ).catch(() => undefined);
    return untrustedCertificate(
      target,
      untrusted,
      cause,
      server && { description: describeServerCertificate(server), issuer: server.issuer },
    );
  }
  const alert = codes.find((c) => CLIENT_CERTIFICATE_ALERT.test(c));
  if (alert)
    return clientCertificateRefused(target, `during the TLS handshake (${alert})`, tls.clientCertificate, cause);
  return undefined;
}

/** The login exchange: a password asked of a method that has none, or a server that could not prove it knows it. */
function fromLoginExchange(
  messages: string[],
  target: string,
  context: ConnectionAttempt,
  cause: unknown,
): ConnectorAuthError | undefined {
  const { endpoint, credential } = context;
  if (messages.some((m) => /client password must be a string|Password must be a string/i.test(m))) {
    return new AuthenticationError(
      `${target} failed: the server asks user '${endpoint.user}' for a password, and auth_method '${credential.method}' has none`,
      {
        code: 'postgres_password_required',
        key: 'auth_method',
        hint: `set 'auth_method' to password with 'password', or ask for a pg_hba.conf entry that authenticates '${endpoint.user}' by certificate`,
        cause,
      },
    );
  }
  if (messages.some((m) => /server signature does not match/i.test(m))) {
    return new SourceIdentityError(
      `${target} failed: the server could not prove it knows the password (SCRAM server signature mismatch): it may not be the server you meant`,
      {
        code: 'postgres_server_signature',
        key: 'host',
        hint: `check that 'host' reaches the right server, and use sslmode=verify-full`,
        cause,
      },
    );
  }
  return undefined;
}

/** The names a mismatched certificate lists, from Node's checkServerIdentity error. */
function certificateNames(chain: unknown[]): string {
  for (const e of chain) {
    const altNames = (e as { cert?: { subjectaltname?: string } }).cert?.subjectaltname;
    if (altNames) return altNames.replace(/IP Address:/g, '').replace(/DNS:/g, '');
  }
  return '';
}
