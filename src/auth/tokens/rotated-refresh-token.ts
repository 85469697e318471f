import { ConfigurationError } from '../../errors/index.js';
import type { AuthContext } from '../auth-method.js';
import { describeError } from '../token-endpoint/index.js';
import { recoveryFileExists, recoveryFilePath, writeRecoveryFile } from './recovery-file.js';

/**
 * A refresh token the authorization server rotated (OAuth 2.1, RFC 9700 §4.14.2): the old one is
 * dead the moment the answer arrives, so the new one is saved —
 * `persistConfigurationValue('refresh_token', …)`, awaited — before the new access token is used.
 * If it cannot be saved, the run stops (ConfigurationError `refresh_token_not_saved`) and the token
 * waits in a 0600 recovery file under files/, which the next run points out.
 */

const KEY = 'refresh_token';

/** A recovery file left by an earlier run holds the only valid refresh token: say so before it is needed. */
export async function warnOfUnsavedRefreshToken(context: Pick<AuthContext, 'filesDir' | 'log'>): Promise<void> {
  if (!context.filesDir || !(await recoveryFileExists(context.filesDir, KEY))) return;
  context.log.warning(
    `${recoveryFilePath(context.filesDir, KEY)} holds a rotated refresh token that was not saved to the configuration; ` +
      `if 'refresh_token' is refused, copy its "value" into 'refresh_token' and delete the file`,
  );
}

/**
 * The rotated token could not be saved and lives only in the recovery file now: another refresh would
 * rotate it again, to a value saved nowhere, and the recovery file's would be retired.
 */
export function isUnsavedRefreshToken(error: unknown): boolean {
  return error instanceof ConfigurationError && error.code === 'refresh_token_not_saved';
}

/** Saves `value`, the new refresh token, before anything uses the access token it came with. */
export async function saveRotatedRefreshToken(value: string, description: string, context: AuthContext): Promise<void> {
  const { log, filesDir, persistConfigurationValue: persist } = context;
  if (!persist) {
    const path = filesDir
      ? await writeRecoveryFile(filesDir, KEY, value, { now: context.now() }).catch(() => undefined)
      : undefined;
    log.warning(
      `${description}: the authorization server rotated the refresh token, and nothing was given to save it ` +
        `(persistConfigurationValue); the new one is kept in memory${path ? ` and in ${path}` : ' only'}: ` +
        `a later run with the old 'refresh_token' will be refused (invalid_grant)`,
    );
    return;
  }
  try {
    await persist(KEY, value);
    log.info(
      `${description}: the authorization server rotated the refresh token; the new one is saved in the configuration`,
    );
    return;
  } catch (error) {
    let path: string | undefined;
    let recoveryFailure: unknown;
    if (filesDir) {
      try {
        path = await writeRecoveryFile(filesDir, KEY, value, { now: context.now() });
      } catch (e) {
        recoveryFailure = e;
      }
    }
    // The local runner's persister already says which files are involved; say it here otherwise.
    if (error instanceof ConfigurationError && path !== undefined && error.message.includes(path))
      throw new ConfigurationError(error.message, {
        code: 'refresh_token_not_saved',
        key: error.key ?? KEY,
        hint: error.hint,
        cause: error,
      });
    const where = path
      ? `the new refresh token is kept in ${path} (mode 0600): copy its "value" into 'refresh_token' and delete the file`
      : filesDir
        ? `writing it to ${recoveryFilePath(filesDir, KEY)} failed too (${describeError(recoveryFailure)}): the refresh token must be issued again`
        : 'no files folder was given for a recovery file: the refresh token must be issued again';
    throw new ConfigurationError(
      `${description}: the authorization server rotated the refresh token, but saving it failed (${describeError(error)}); ${where}`,
      {
        code: 'refresh_token_not_saved',
        key: KEY,
        hint: "make the configuration writable, then put the recovered value in 'refresh_token'",
        cause: error,
      },
    );
  }
}
