import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SftpSource } from '../../src/sources/index.js';
import { sshLogin, type LoginRecord, type SshLoginSecret } from '../../src/network/index.js';
import { leakForms } from '../helpers/cli.js';
import { connectSource, expectNoSecretIn, probeFailure as probeFailureOf, until } from '../helpers/source-session.js';
import {
  EXPIRED_PASSWORD,
  EXPIRED_USER,
  generateKeyPair,
  sftpConfiguration,
  sftpKeyConfiguration,
  start,
  type SshKeyPair,
  type SshdPeer,
} from '../peers/sshd.js';

/**
 * The sftp login beyond one method, against real OpenSSH servers (test/peers/sshd.ts): passwords
 * checked by PAM through keyboard-interactive (the password answers PAM's one prompt), an expired
 * password (PAM asks for a new one: refused, nothing changed), and servers that require a second
 * method after the first (`AuthenticationMethods`).
 */

const WRONG_PASSWORD = 'Wr0ng/+pam?&y';

/** Passwords through PAM's keyboard-interactive only; EXPIRED_USER may log in too. */
let pam: SshdPeer;
/** A password and then a key. */
let passwordThenKey: SshdPeer;
/** A key and then a password. */
let keyThenPassword: SshdPeer;
let key: SshKeyPair;

beforeAll(async () => {
  key = await generateKeyPair({ type: 'ed25519' });
  [pam, passwordThenKey, keyThenPassword] = await Promise.all([
    start({ keyboardInteractive: true, expiredUser: true, authorizedKeys: [key.publicKey] }),
    start({ authenticationMethods: 'password,publickey', authorizedKeys: [key.publicKey] }),
    start({ authenticationMethods: 'publickey,password', authorizedKeys: [key.publicKey] }),
  ]);
});

afterAll(async () => {
  await Promise.all([pam?.stop(), passwordThenKey?.stop(), keyThenPassword?.stop()]);
});

const configuration = sftpConfiguration;
const keyConfiguration = (server: SshdPeer) => sftpKeyConfiguration(server, key);

const connect = (config: Record<string, string>) => connectSource<SftpSource>(config, 'sftp');
const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'sftp');
const secretForms = () => [pam.password, WRONG_PASSWORD, EXPIRED_PASSWORD, key.privateKey].flatMap((s) => leakForms(s));

/** sshd's log lines of one kind for one user, e.g. "Failed keyboard-interactive/pam for cauth-sftp". */
const logged = (server: SshdPeer, text: string) =>
  server
    .log()
    .split(/\r?\n/)
    .filter((line) => line.includes(text)).length;

describe('sftp source, passwords checked by PAM (keyboard-interactive)', () => {
  it("the password answers PAM's prompt when the server offers no password method", async () => {
    const accepted = logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`);
    const { auth, lines } = await connect(configuration(pam));
    try {
      expect((await auth.probe()).outcome).toMatch(/^SFTP list \. \(login directory\): \d+ entr(y|ies)$/);
    } finally {
      await auth.close();
    }
    await until(() => logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`) > accepted);
    expect(logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`)).toBe(accepted + 1);
    expect(lines.join('\n')).not.toContain(pam.password);
  });

  it('a wrong password: exit 3 naming password, after one attempt', async () => {
    const failed = logged(pam, `Failed keyboard-interactive/pam for ${pam.user}`);
    const gone = logged(pam, `Disconnected from authenticating user ${pam.user}`);
    const { error, lines } = await probeFailure(configuration(pam, { password: WRONG_PASSWORD }));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_password_rejected');
    expect(error.key).toBe('password');
    expect(error.message).toBe(
      `password auth: sftp://cauth-sftp@127.0.0.1:${pam.port} failed: the server rejected the password for user 'cauth-sftp'`,
    );
    expectNoSecretIn(error, lines, secretForms());
    // The password went once: a second try would count against the account's lockout. sshd logs
    // after the client has its answer, so the count is taken once it logged the disconnection.
    await until(() => logged(pam, `Disconnected from authenticating user ${pam.user}`) > gone);
    expect(logged(pam, `Failed keyboard-interactive/pam for ${pam.user}`)).toBe(failed + 1);
  });

  it('an expired password: exit 3 naming password, quoting the server; no new password is set', async () => {
    const { error, lines } = await probeFailure(
      configuration(pam, { username: EXPIRED_USER, password: EXPIRED_PASSWORD }),
    );
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_password_expired');
    expect(error.key).toBe('password');
    expect(error.message).toContain(
      `failed: the password of user '${EXPIRED_USER}' has expired; the server asks for a new one`,
    );
    expect(error.message).toContain('You are required to change your password immediately');
    expect(error.hint).toContain(`log in once with ssh as '${EXPIRED_USER}'`);
    expectNoSecretIn(error, lines, secretForms());
    // Still expired: the connector answered PAM's "Current password:" with nothing, not the password.
    const aging = spawnSync('chage', ['-l', EXPIRED_USER], { encoding: 'utf8' }).stdout;
    expect(aging).toMatch(/Last password change\s*:\s*password must be changed/);
  });

  it('a key still logs in by publickey', async () => {
    const { auth } = await connect(keyConfiguration(pam));
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
  });
});

describe('sftp source, servers that require two methods', () => {
  it('a password accepted, a key also required: exit 3 naming auth_method', async () => {
    const { error, lines } = await probeFailure(configuration(passwordThenKey));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_more_methods_required');
    expect(error.key).toBe('auth_method');
    expect(error.message).toBe(
      `password auth: sftp://cauth-sftp@127.0.0.1:${passwordThenKey.port} failed: the server accepted the password for user 'cauth-sftp' but also requires publickey`,
    );
    expect(error.hint).toContain('AuthenticationMethods');
    expectNoSecretIn(error, lines, secretForms());
  });

  it('a key accepted, a password also required: exit 3 naming auth_method', async () => {
    const { error, lines } = await probeFailure(keyConfiguration(keyThenPassword));
    expect(error.code).toBe('ssh_more_methods_required');
    expect(error.key).toBe('auth_method');
    expect(error.message).toContain(
      "failed: the server accepted the key for user 'cauth-sftp' but also requires password",
    );
    expectNoSecretIn(error, lines, secretForms());
  });
});

describe('the keyboard-interactive answers (network/ssh-login.ts)', () => {
  const PASSWORD_SECRET: SshLoginSecret = { kind: 'password', password: () => 'pw' };
  type Prompter = (
    name: string,
    instructions: string,
    lang: string,
    prompts: { prompt: string; echo?: boolean }[],
    finish: (answers: string[]) => void,
  ) => void;

  /** The prompt function the login hands ssh2 after the server refused the password method. */
  const prompter = (record: LoginRecord): Prompter => {
    const handler = sshLogin(PASSWORD_SECRET, 'alice')(record);
    handler(null, null);
    const attempt = handler(['publickey', 'keyboard-interactive'], false);
    if (!attempt || attempt.type !== 'keyboard-interactive') throw new Error('no keyboard-interactive attempt');
    return attempt.prompt;
  };
  const answer = (prompt: Prompter, prompts: { prompt: string; echo?: boolean }[]) => {
    let answers: string[] | undefined;
    prompt('', '', '', prompts, (given) => (answers = given));
    return answers;
  };

  it('messages-only rounds get no answers; the one hidden prompt gets the password, once', () => {
    const record: LoginRecord = {};
    const prompt = prompter(record);
    expect(answer(prompt, [])).toEqual([]);
    expect(answer(prompt, [{ prompt: 'Password: ', echo: false }])).toEqual(['pw']);
    expect(answer(prompt, [{ prompt: 'Verification code: ', echo: false }])).toEqual(['']);
    expect(record.unansweredPrompt).toEqual({ text: 'Verification code:', afterPassword: true });
  });

  it('a visible prompt or several in one round are not given the password', () => {
    for (const prompts of [[{ prompt: 'Username: ', echo: true }], [{ prompt: 'Password: ' }, { prompt: 'Token: ' }]]) {
      const record: LoginRecord = {};
      expect(answer(prompter(record), prompts)).toEqual(prompts.map(() => ''));
      expect(record.unansweredPrompt?.afterPassword).toBe(false);
    }
  });

  it('no keyboard-interactive when the server offers the password method (a refused password is not sent twice)', () => {
    const record: LoginRecord = {};
    const handler = sshLogin(PASSWORD_SECRET, 'alice')(record);
    handler(null, null);
    expect(handler(['publickey', 'password', 'keyboard-interactive'], false)).toBe(false);
    expect(record.offeredMethods).toEqual(['publickey', 'password', 'keyboard-interactive']);
  });
});
