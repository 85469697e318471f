import { AuthenticationError, SourceUnreachableError } from '../../errors/index.js';
import type { HttpAnswer } from '../../network/index.js';

/**
 * What a login endpoint's answer means when it is not a session: the status a login request got,
 * classified once for the built-in `session_token` and for any method a connector writes itself.
 * 400, 401 and 403 refuse the credential (exit 3, naming `rejectedKey`); anything else is the
 * endpoint failing or being the wrong address (exit 4, naming `urlKey`).
 */
export interface LoginAnswerContext {
  /** The credential, for the message: "session token as 'alice'". Never a secret. */
  credential: string;
  /** The key to fix when the login is refused (`password`). */
  rejectedKey: string;
  /** The key that holds the login URL (`login_url`). */
  urlKey: string;
}

export function loginAnswerError(answer: HttpAnswer, url: URL, context: LoginAnswerContext) {
  const status = `HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  const target = `${context.credential}: the login at ${url.origin}${url.pathname}`;
  if (answer.status === 400 || answer.status === 401 || answer.status === 403)
    return new AuthenticationError(`${target} was refused (${status})`, {
      code: `login_http_${answer.status}`,
      key: context.rejectedKey,
      hint: `check '${context.rejectedKey}' (and the user it belongs to)`,
    });
  return new SourceUnreachableError(`${target} answered ${status}`, {
    code: `login_http_${answer.status}`,
    key: context.urlKey,
    hint:
      answer.status >= 500
        ? 'the login endpoint failed: retry later'
        : `check '${context.urlKey}': it should be the address of the login request`,
  });
}

/** A login answer without the token where it was looked for: the location key is wrong, not the password. */
export function tokenMissingError(where: string, url: URL, context: LoginAnswerContext & { locationKey: string }) {
  return new SourceUnreachableError(
    `${context.credential}: the login at ${url.origin}${url.pathname} succeeded, but its answer has no token at ${where}`,
    {
      code: 'session_token_missing',
      key: context.locationKey,
      hint: `check '${context.locationKey}': where the login's answer carries the token (body:<json path>, header:<name> or cookie:<name>)`,
    },
  );
}
