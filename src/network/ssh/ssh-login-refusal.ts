import { AuthenticationError } from '../../errors/index.js';
import type { LoginRecord } from './ssh-login.js';

/**
 * A refused SSH login (ssh2's `client-authentication` error) as one of the project's errors: a
 * second step the connector cannot take (a prompt after the password, a second method), the method
 * when the server does not offer it, else the secret itself. The sftp source's server and the SSH
 * tunnel's bastion are judged by the same rules; `LoginTerms` says what each calls its keys.
 */

export interface LoginTerms {
  /** What was offered: a password or a key. */
  kind: 'password' | 'key';
  /** What the peer is called in messages. */
  peer: 'server' | 'bastion';
  /** The account logged in as, and the key that names it. */
  user: string;
  userKey: string;
  /** Prefix of the error codes: `ssh` (`ssh_password_rejected`) or `ssh_tunnel`. */
  codePrefix: 'ssh' | 'ssh_tunnel';
  /** The key that holds the refused password or private key. */
  secretKey: string;
  /** The key that chose a password or a key: `auth_method` for sftp, the secret's own key for the tunnel. */
  methodKey: string;
  /** How to log in with the other kind of secret instead, e.g. "set 'auth_method' to ssh_key". */
  useOther(other: 'password' | 'key'): string;
}

export function loginRefused(
  target: string,
  record: LoginRecord,
  terms: LoginTerms,
  cause: unknown,
): AuthenticationError {
  const { offeredMethods, moreMethodsRequired, unansweredPrompt } = record;
  const { peer, user, codePrefix } = terms;
  const isPassword = terms.kind === 'password';
  if (unansweredPrompt !== undefined) return promptRefused(target, unansweredPrompt, terms, cause);
  if (moreMethodsRequired) {
    const more = moreMethodsRequired.length ? moreMethodsRequired.join(' or ') : 'another method';
    return new AuthenticationError(
      `${target} failed: the ${peer} accepted the ${isPassword ? 'password' : 'key'} for user '${user}' but also requires ${more}`,
      {
        code: `${codePrefix}_more_methods_required`,
        key: terms.methodKey,
        hint: `a connector logs in with one credential: ask the ${peer}'s administrator to let '${user}' log in with ${isPassword ? 'a password' : 'a key'} alone (AuthenticationMethods in sshd_config)`,
        cause,
      },
    );
  }
  // A password is accepted by the password method or, through PAM, keyboard-interactive.
  const methods = isPassword ? ['password', 'keyboard-interactive'] : ['publickey'];
  const sshMethod = isPassword ? 'password' : 'publickey';
  if (offeredMethods && offeredMethods.length > 0 && !methods.some((method) => offeredMethods.includes(method))) {
    return new AuthenticationError(
      `${target} failed: the ${peer} does not accept ${sshMethod} logins for user '${user}' (it offers ${offeredMethods.join(', ')})`,
      {
        code: `${codePrefix}_method_not_offered`,
        key: terms.methodKey,
        hint: offeredMethods.includes(isPassword ? 'publickey' : 'password')
          ? `${terms.useOther(isPassword ? 'key' : 'password')}, or ask the ${peer}'s administrator to allow ${sshMethod} logins`
          : `ask the ${peer}'s administrator which login methods '${user}' may use`,
        cause,
      },
    );
  }
  if (isPassword) {
    return new AuthenticationError(`${target} failed: the ${peer} rejected the password for user '${user}'`, {
      code: `${codePrefix}_password_rejected`,
      key: terms.secretKey,
      hint: `check '${terms.secretKey}', and that '${terms.userKey}' names an existing account: SSH servers answer the same for an unknown user`,
      cause,
    });
  }
  return new AuthenticationError(`${target} failed: the ${peer} did not accept the key for user '${user}'`, {
    code: `${codePrefix}_key_rejected`,
    key: terms.secretKey,
    hint: `add the public key (\`ssh-keygen -y -f KEYFILE\` prints it) to ~${user}/.ssh/authorized_keys on the ${peer}, or check '${terms.secretKey}' and '${terms.userKey}'`,
    cause,
  });
}

/**
 * PAM asked something other than the password. An expired password ("You are required to change your
 * password immediately") names the password's key; anything else (a one-time code) is a second factor.
 */
function promptRefused(
  target: string,
  { text: prompt, afterPassword }: { text: string; afterPassword: boolean },
  terms: LoginTerms,
  cause: unknown,
): AuthenticationError {
  const { peer, user, codePrefix } = terms;
  if (afterPassword && /expired|change your password|changing password|new password/i.test(prompt)) {
    return new AuthenticationError(
      `${target} failed: the password of user '${user}' has expired; the ${peer} asks for a new one ("${prompt}")`,
      {
        code: `${codePrefix}_password_expired`,
        key: terms.secretKey,
        hint: `log in once with ssh as '${user}' to choose a new password, then set '${terms.secretKey}' to it (a connector does not change passwords)`,
        cause,
      },
    );
  }
  const asked = afterPassword
    ? `after the password the ${peer} asked "${prompt}"`
    : `the ${peer} asked "${prompt}" instead of a password`;
  return new AuthenticationError(`${target} failed: ${asked}, which an unattended connector cannot answer`, {
    code: `${codePrefix}_prompt_not_answered`,
    key: terms.methodKey,
    hint: `ask the ${peer}'s administrator to exempt '${user}' from the second step (a one-time code, say), or ${terms.useOther('key')}`,
    cause,
  });
}
