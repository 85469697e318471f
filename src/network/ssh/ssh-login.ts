import type { SshPrivateKey } from './ssh-private-key.js';

/**
 * An unattended SSH login, as ssh2's `authHandler`: the one configured secret, once, and nothing
 * else (no agent, no keys from ~/.ssh). The sftp source logs in to its server with it, the SSH
 * tunnel to its bastion.
 *
 * A password goes by the `password` method. Servers that check passwords through PAM often offer
 * only `keyboard-interactive` instead: PAM then asks its own questions. The password answers the
 * first one, and only when it is a single hidden prompt ("Password: "). Anything asked after it — a
 * one-time code, or "You are required to change your password immediately" — is answered with
 * nothing (the password is never sent twice), and what was asked is kept for the error: an unattended
 * connector cannot answer a second factor, and must not change a password on its own.
 *
 * What the server said along the way (the methods it still offers, a partial success, the prompt
 * left unanswered) is written to `record`, for ssh-login-refusal.ts to say which key to fix.
 */

/** What a connector logs in with: a password or a parsed private key, read when the login starts. */
export type SshLoginSecret = { kind: 'password'; password: () => string } | { kind: 'key'; key: () => SshPrivateKey };

export interface LoginRecord {
  /** The methods the server still offered after refusing ours, when it said. */
  offeredMethods?: readonly string[] | undefined;
  /** The server accepted our method but requires one of these as well (`AuthenticationMethods a,b`). */
  moreMethodsRequired?: readonly string[] | undefined;
  /** A keyboard-interactive prompt not answered with the password: its text (one line), and whether the password had been sent. */
  unansweredPrompt?: { text: string; afterPassword: boolean } | undefined;
}

/**
 * ssh2's `authHandler`, spelled without ssh2's types so that our declarations stand without
 * @types/ssh2: ssh2 passes the methods left as strings, and takes the handler's return value as its
 * choice: the next attempt, or false for no more (ssh2's README: "return/pass `false` to signal no
 * more methods to try"). Returning rather than calling ssh2's `next` keeps false in our type:
 * @types/ssh2's `next` leaves it out, and a handler returning it is still one ssh2's type accepts.
 */
export type SshAuthHandler = (methodsLeft: string[] | null, partialSuccess: boolean | null) => SshLoginAttempt | false;

/** One attempt as ssh2's authHandler takes it (its PasswordAuthMethod, PublicKeyAuthMethod, KeyboardInteractiveAuthMethod). */
export type SshLoginAttempt =
  | { type: 'password'; username: string; password: string }
  | { type: 'publickey'; username: string; key: SshPrivateKey }
  | { type: 'keyboard-interactive'; username: string; prompt: KeyboardInteractiveAnswer };

type KeyboardInteractiveAnswer = (
  name: string,
  instructions: string,
  lang: string,
  prompts: { prompt: string; echo?: boolean }[],
  finish: (answers: string[]) => void,
) => void;

/** Longest prompt text kept for an error message: a PAM prompt is a line or two. */
const PROMPT_SHOWN = 160;

/**
 * The login with `secret`: a function that makes the handler of one connection attempt, which
 * writes what the server said to that attempt's record.
 */
export function sshLogin(secret: SshLoginSecret, username: string): (record: LoginRecord) => SshAuthHandler {
  const password = secret.kind === 'password' ? secret.password : undefined;
  return (record) => {
    let triedFirst = false;
    let triedKeyboard = false;
    return (methodsLeft, partialSuccess) => {
      if (!triedFirst) {
        triedFirst = true;
        return firstAttempt(secret, username);
      }
      if (partialSuccess) {
        // One secret is all a connector has: a second method cannot be supplied.
        record.moreMethodsRequired = methodsLeft ?? [];
        return false;
      }
      if (
        password &&
        !triedKeyboard &&
        methodsLeft?.includes('keyboard-interactive') &&
        !methodsLeft.includes('password')
      ) {
        triedKeyboard = true;
        return { type: 'keyboard-interactive', username, prompt: answerPasswordPrompt(password, record) };
      }
      record.offeredMethods = methodsLeft ?? undefined;
      return false;
    };
  };
}

/** The configured secret by its own method, read now (a password the credential may have just re-read). */
function firstAttempt(secret: SshLoginSecret, username: string): SshLoginAttempt {
  return secret.kind === 'password'
    ? { type: 'password', username, password: secret.password() }
    : { type: 'publickey', username, key: secret.key() };
}

/**
 * Answers PAM's conversation: rounds without prompts (messages only) with nothing, the first prompt
 * with the password when it is the round's only one and hidden, any other with an empty answer.
 */
function answerPasswordPrompt(password: () => string, record: LoginRecord): KeyboardInteractiveAnswer {
  let answered = false;
  return (_name: string, _instructions: string, _lang: string, prompts, finish): void => {
    if (prompts.length === 0) return finish([]);
    if (!answered && prompts.length === 1 && prompts[0]!.echo !== true) {
      answered = true;
      return finish([password()]);
    }
    record.unansweredPrompt ??= { text: promptText(prompts[0]!.prompt), afterPassword: answered };
    finish(prompts.map(() => ''));
  };
}

/** A server's prompt as one line of printable text, cut short. */
function promptText(prompt: string): string {
  const line = prompt
    .split(/\r?\n/)
    .map((part) => part.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').trim())
    .filter(Boolean)
    .join(' ');
  return line.length > PROMPT_SHOWN ? `${line.slice(0, PROMPT_SHOWN - 1)}…` : line;
}
