import { SourceUnreachableError, systemErrorCode, type UnreachableCode } from '../errors/index.js';
import { SYSTEM_ERROR_DESCRIPTIONS } from '../network/index.js';

/**
 * The ways a database or file source's server cannot be reached (postgres, mysql, ftp, sftp), said
 * the same way by each: exit 4, naming `timeout_seconds` when nothing answered in time, and `host`
 * when the socket failed (nothing listening, a name that does not resolve) or the server hung up
 * during the login. Each source says what should be listening.
 */

const NO_ANSWER_HINT = `check 'host' and 'port' and that no firewall drops the connection, or raise 'timeout_seconds'`;

export interface NoAnswerDetail {
  /** What did not answer, when not the server itself ("SSH "). */
  what?: string;
  /** A hint of the source's own, when it knows a likelier cause (implicit FTPS on its own port). */
  hint?: string;
}

export function noAnswerInTime(
  target: string,
  timeoutSeconds: number,
  cause: unknown,
  detail: NoAnswerDetail = {},
): SourceUnreachableError {
  return new SourceUnreachableError(`${target} failed: no ${detail.what ?? ''}answer within ${timeoutSeconds}s`, {
    code: 'timeout',
    key: 'timeout_seconds',
    hint: detail.hint ?? NO_ANSWER_HINT,
    cause,
  });
}

/**
 * The first of `codes` that is a socket's system error (ECONNREFUSED, ENOTFOUND, …), as an error;
 * `listening` says what should run there ("PostgreSQL is running and accepts TCP connections").
 */
export function socketFailure(
  codes: readonly string[],
  target: string,
  listening: string,
  cause: unknown,
): SourceUnreachableError | undefined {
  const system = codes.find((c) => SYSTEM_ERROR_DESCRIPTIONS[c]);
  if (system === undefined) return undefined;
  return new SourceUnreachableError(`${target} failed: ${SYSTEM_ERROR_DESCRIPTIONS[system]}`, {
    code: systemErrorCode(system),
    key: 'host',
    hint: `check 'host' and 'port', and that ${listening} there`,
    cause,
  });
}

/** The server hung up before the login was through; `server` is what 'host' should point at ("a PostgreSQL server"). */
export function closedDuringLogin(
  target: string,
  code: UnreachableCode,
  server: string,
  cause: unknown,
): SourceUnreachableError {
  return new SourceUnreachableError(`${target} failed: the server closed the connection during login`, {
    code,
    key: 'host',
    hint: `check that 'host' and 'port' point at ${server}`,
    cause,
  });
}
