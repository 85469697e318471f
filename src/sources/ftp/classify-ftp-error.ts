import {
  AuthenticationError,
  ConfigurationError,
  ConnectorError,
  SourceIdentityError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import {
  CLIENT_CERTIFICATE_ALERT,
  certificateForAnotherHost,
  untrustedCertificate,
  HOST_MISMATCH_CODES,
  UNTRUSTED_CERTIFICATE_CODES,
  causeChain,
  clientCertificateRefused,
  oneLine,
  type TlsSettings,
} from '../../network/index.js';
import { classifyUnlessOurs } from '../classify-failure.js';
import { noAnswerInTime, socketFailure } from '../unreachable-errors.js';
import { describeEndpoint, type FtpEndpoint } from './ftp-settings.js';

/**
 * What a failed FTP session means, as one of the project's errors. The source runs the session's
 * steps one by one (connect, AUTH TLS, login, the probe's listing), so the step that failed says
 * much: a 530 at the login is the password, a 5xx to AUTH TLS is a server without FTPS. basic-ftp
 * gives the server's reply code (`code`, a number) and text; Node's TLS and socket errors keep
 * their codes. FTP servers do not echo the password (vsftpd answers "530 Login incorrect.").
 */

export type FtpStep = 'connect' | 'tls' | 'login' | 'list';

export interface FtpFailureContext {
  endpoint: FtpEndpoint;
  credential: string;
  tls: TlsSettings;
  timeoutSeconds: number;
}

export function classifyFtpError(
  error: unknown,
  step: FtpStep,
  context: FtpFailureContext,
  path?: string,
): ConnectorAuthError {
  const where = describeEndpoint(context.endpoint);
  return classifyUnlessOurs(error, { description: context.credential }, where, (target) =>
    fromReply(error, step, context, target, path),
  );
}

/** The server answered (a reply code), or the connection failed before it could. */
function fromReply(
  error: unknown,
  step: FtpStep,
  context: FtpFailureContext,
  target: string,
  path: string | undefined,
): ConnectorAuthError {
  const chain = causeChain(error);
  const { endpoint } = context;
  const reply = chain.map((e) => (e as { code?: unknown }).code).find((c): c is number => typeof c === 'number');
  const said = oneLine(error instanceof Error ? error.message : String(error), 200) ?? '';
  const cause = error;

  if (reply !== undefined) {
    if (step === 'tls')
      return new SourceIdentityError(`${target} failed: the server does not offer FTPS (AUTH TLS answered ${said})`, {
        code: 'ftp_tls_not_offered',
        key: 'ftp_tls',
        hint: "ask for FTPS on the server; set 'ftp_tls' to implicit if it speaks TLS from the first byte, or to none only if the whole network path is trusted",
        cause,
      });
    if (step === 'login' && /encrypt|TLS|SSL|secure/i.test(said))
      return new ConfigurationError(`${target} failed: the server accepts this login only over TLS (${said})`, {
        code: 'ftp_tls_required',
        key: 'ftp_tls',
        hint: "set 'ftp_tls' to explicit (the default) or implicit",
        cause,
      });
    if (step === 'login' && (reply === 530 || reply === 430))
      return new AuthenticationError(
        `${target} failed: the server rejected the password for user '${endpoint.username}' (${said})`,
        {
          code: 'ftp_login_rejected',
          key: 'password',
          hint: `check 'password', and that 'username' names an account the server lets in: FTP servers answer the same for an unknown user`,
          cause,
        },
      );
    if (step === 'list' && reply === 550)
      return new SourceUnreachableError(`${target} failed: FTP list ${path}: ${said}`, {
        code: 'ftp_probe_path_missing',
        key: 'probe_path',
        hint: `set 'probe_path' to a directory that '${endpoint.username}' may list ('.' is the login directory)`,
        cause,
      });
    return new SourceUnreachableError(`${target} failed: the server answered ${said}`, {
      code: `ftp_${reply}`,
      key: step === 'list' ? 'probe_path' : 'host',
      hint: `check 'host' and 'port', and the server's log`,
      cause,
    });
  }
  return fromConnection(error, chain, target, context, said);
}

/** Sockets, timeouts and TLS: no FTP reply was read. */
function fromConnection(
  cause: unknown,
  chain: unknown[],
  target: string,
  context: FtpFailureContext,
  said: string,
): ConnectorAuthError {
  const { endpoint, timeoutSeconds } = context;
  const codes = chain.map((e) => String((e as { code?: unknown }).code ?? ''));
  if (codes.some((c) => HOST_MISMATCH_CODES.has(c))) return certificateForAnotherHost(target, endpoint.host, cause);
  const untrusted = codes.find((c) => UNTRUSTED_CERTIFICATE_CODES.has(c));
  if (untrusted) return untrustedCertificate(target, untrusted, cause);
  const alert = codes.find((c) => CLIENT_CERTIFICATE_ALERT.test(c));
  if (alert)
    return clientCertificateRefused(
      target,
      `during the TLS handshake (${alert})`,
      context.tls.clientCertificate,
      cause,
    );
  if (/timeout/i.test(said))
    return noAnswerInTime(target, timeoutSeconds, cause, {
      hint:
        endpoint.tls === 'implicit'
          ? `check 'host' and 'port' (implicit FTPS listens on its own port, usually 990), or raise 'timeout_seconds'`
          : `check 'host' and 'port' and that no firewall drops the connection, or raise 'timeout_seconds'; a server that speaks TLS from the first byte needs 'ftp_tls' implicit`,
    });
  const socket = socketFailure(codes, target, 'an FTP server runs and accepts connections', cause);
  if (socket) return socket;
  if (codes.some((c) => c.startsWith('ERR_SSL_')) || /wrong version number|packet length too long/i.test(said))
    return new SourceUnreachableError(`${target} failed: the TLS handshake failed (${said})`, {
      code: 'ftp_tls_handshake_failed',
      key: 'ftp_tls',
      hint: `check 'ftp_tls': implicit for a server that speaks TLS from the first byte (port 990), explicit for AUTH TLS on the plain port`,
      cause,
    });
  return new SourceUnreachableError(`${target} failed: ${said || 'the FTP connection failed'}`, {
    code: 'ftp_connection_failed',
    key: 'host',
    hint: `check that 'host' and 'port' point at an FTP server`,
    cause,
  });
}

/**
 * A file call of the connector's update(): a missing or refused file is the connector's error
 * (exit 1), said with the path; a lost connection is classified like the login.
 */
export function classifyFileError(error: unknown, operation: string, path: string, context: FtpFailureContext): Error {
  const reply = (error as { code?: unknown })?.code;
  if (typeof reply !== 'number') return classifyFtpError(error, 'connect', context);
  const said = oneLine(error instanceof Error ? error.message : String(error), 200) ?? '';
  return new ConnectorError(`${describeEndpoint(context.endpoint)}: FTP ${operation} ${path}: ${said}`, {
    code: reply === 550 ? 'ftp_no_such_file' : `ftp_${reply}`,
    cause: error,
  });
}
