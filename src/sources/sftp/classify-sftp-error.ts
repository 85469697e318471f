import type { Credential } from '../../auth/index.js';
import {
  AuthenticationError,
  ConnectorError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import {
  hostKeyMismatch,
  loginRefused,
  type HostKeyCheck,
  type HostKeyRule,
  type LoginRecord,
} from '../../network/index.js';
import { classifyUnlessOurs } from '../classify-failure.js';
import { noAnswerInTime, socketFailure } from '../unreachable-errors.js';
import { sftpLoginTerms } from './login-secret.js';
import { describeEndpoint, type SftpEndpoint } from './sftp-settings.js';

/**
 * What a failed SSH login or SFTP call means, as one of the project's errors: a line naming the
 * method, `sftp://user@host:port` and what failed, and the key to fix.
 *
 * ssh2 marks its connection errors with a `level` (client-authentication, client-timeout,
 * client-socket, client-dns); ssh2-sftp-client rewraps them without it, so the source keeps the
 * error ssh2 emitted and passes it here. ssh2's messages are fixed phrases and socket codes; none
 * carries a password or key material, and only recognised phrases are quoted.
 *
 * SFTP answers a call with a status code: 2 no such file, 3 permission denied, 4 failure.
 */

/** The connection attempt: what was tried, and what the server said during the login (network/ssh-login.ts). */
export interface SftpFailureContext extends LoginRecord {
  endpoint: SftpEndpoint;
  credential: Credential;
  timeoutSeconds: number;
  hostKeyRule: HostKeyRule;
  hostKey: HostKeyCheck;
}

const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

type SshError = Error & { level?: string; code?: unknown };

/** Connecting, the host key, the login, starting the SFTP subsystem. */
export function classifyConnectError(error: unknown, context: SftpFailureContext): ConnectorAuthError {
  const where = describeEndpoint(context.endpoint);
  return classifyUnlessOurs(error, context.credential, where, (target) => fromConnectFailure(error, target, context));
}

function fromConnectFailure(error: unknown, target: string, context: SftpFailureContext): ConnectorAuthError {
  const { endpoint, credential } = context;
  const e = (error instanceof Error ? error : new Error(String(error))) as SshError;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = e.message.replace(/^[a-zA-Z]+: /, '');

  if (context.hostKey.refused())
    return hostKeyMismatch(context.hostKeyRule, context.hostKey.presented(), target, error);
  if (e.level === 'client-authentication')
    return loginRefused(target, context, sftpLoginTerms(endpoint, credential), error);
  if (e.level === 'client-timeout' || /timed out/i.test(message)) {
    return noAnswerInTime(target, context.timeoutSeconds, error, { what: 'SSH ' });
  }
  const socket = socketFailure([code], target, 'an SSH server runs and accepts connections', error);
  if (socket) return socket;
  return fromSshMessage(error, message, target, endpoint);
}

/** What is left is told by ssh2's message: a failed handshake, no SFTP subsystem, a lost connection. */
function fromSshMessage(error: unknown, message: string, target: string, endpoint: SftpEndpoint): ConnectorAuthError {
  if (/^Handshake failed: (.{1,80})$/.test(message)) {
    return new SourceUnreachableError(
      `${target} failed: the SSH handshake failed (${message.replace(/^Handshake failed: /, '')})`,
      {
        code: 'ssh_handshake_failed',
        key: 'host',
        hint: `the server and ssh2 share no algorithm: check that 'host' and 'port' point at the SSH server meant, or ask its administrator`,
        cause: error,
      },
    );
  }
  if (/subsystem/i.test(message)) {
    return new SourceUnreachableError(
      `${target} failed: the server does not start SFTP for user '${endpoint.username}'`,
      {
        code: 'sftp_subsystem_unavailable',
        key: 'username',
        hint: `ask the server's administrator to enable the sftp subsystem for '${endpoint.username}' (Subsystem sftp in sshd_config)`,
        cause: error,
      },
    );
  }
  const known =
    /^(Connection lost before handshake|Unexpected (end|close) event|Remote host has reset the connection|No SFTP connection available|Not connected)/i.exec(
      message,
    );
  return new SourceUnreachableError(
    `${target} failed: ${known ? known[0].toLowerCase() : 'the SSH connection failed'}`,
    {
      code: 'ssh_connection_failed',
      key: 'host',
      hint: `check that 'host' and 'port' point at an SSH server`,
      cause: error,
    },
  );
}

/** The probe's readdir of `probe_path`. */
export function classifyProbeError(error: unknown, path: string, context: SftpFailureContext): ConnectorAuthError {
  const status = sftpStatus(error);
  if (status === undefined) return classifyConnectError(error, context);
  const target = `${context.credential.description}: ${describeEndpoint(context.endpoint)}`;
  const user = context.endpoint.username;
  if (status === NO_SUCH_FILE) {
    return new SourceUnreachableError(`${target} failed: SFTP list ${path}: no such directory`, {
      code: 'sftp_probe_path_missing',
      key: 'probe_path',
      hint: `set 'probe_path' to a directory that exists ('.' is the login directory of '${user}'; relative paths start there)`,
      cause: error,
    });
  }
  if (status === PERMISSION_DENIED) {
    return new AuthenticationError(`${target} failed: SFTP list ${path}: permission denied for user '${user}'`, {
      code: 'sftp_permission_denied',
      key: 'username',
      hint: `give '${user}' read access to ${path} on the server, or set 'probe_path' to a directory it may list`,
      cause: error,
    });
  }
  return new SourceUnreachableError(
    `${target} failed: SFTP list ${path}: the server could not list it (SFTP status ${status}; is it a directory?)`,
    {
      code: 'sftp_probe_failed',
      key: 'probe_path',
      hint: `set 'probe_path' to a directory that '${user}' may list`,
      cause: error,
    },
  );
}

/**
 * A file call of the connector's update(): a missing file or a refused one is the connector's
 * error (exit 1), said with the path; a lost connection is classified like the login.
 */
export function classifyFileError(error: unknown, operation: string, path: string, context: SftpFailureContext): Error {
  const status = sftpStatus(error);
  if (status === undefined) return classifyConnectError(error, context);
  const target = `${describeEndpoint(context.endpoint)}: SFTP ${operation} ${path}`;
  const [code, what] =
    status === NO_SUCH_FILE
      ? ['sftp_no_such_file', 'no such file or directory']
      : status === PERMISSION_DENIED
        ? ['sftp_permission_denied', `permission denied for user '${context.endpoint.username}'`]
        : ['sftp_failure', `the server refused it (SFTP status ${status})`];
  return new ConnectorError(`${target}: ${what}`, { code, cause: error });
}

/**
 * The statuses ssh2-sftp-client (12.x) reports by name instead of number: its stat() turns SFTP
 * status 2 into 'ENOENT' (and a refusal into 'EACCES'). It turns status 4, a bare failure, into
 * 'ENOENT' too, with the same "No such file" message: the library loses the difference, so a stat
 * the server failed for another reason (a symlink loop, an I/O error) reads as a missing file here.
 */
const NAMED_STATUS = new Map<string, number>([
  ['ENOENT', NO_SUCH_FILE],
  ['EACCES', PERMISSION_DENIED],
]);

/** The SFTP status of a refused call (ssh2 gives it as a numeric `code`), or undefined. */
function sftpStatus(error: unknown): number | undefined {
  const { code, custom } = (error ?? {}) as { code?: unknown; custom?: unknown };
  if (typeof code === 'number') return code >= 1 && code <= 31 ? code : undefined;
  // Only in the errors ssh2-sftp-client wraps (it marks them `custom`), not a bare system error of
  // the connection. The library wraps local file errors too, but the source's calls (stat, list,
  // read) touch no local file: a named code there is the server's answer.
  return typeof code === 'string' && custom === true ? NAMED_STATUS.get(code) : undefined;
}
