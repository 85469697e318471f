import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestSource } from '../../src/sources/index.js';
import { cli, exists, initTemplate, leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import {
  connectSource,
  expectNoSecretIn,
  pemLines,
  probeFailure as probeFailureOf,
  until,
} from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { start as startApi, type HttpApiPeer } from '../peers/http-api.js';
import {
  EXPIRED_PASSWORD,
  EXPIRED_USER,
  generateKeyPair,
  start as startSshd,
  type SshKeyPair,
  type SshdPeer,
} from '../peers/sshd.js';

/**
 * A bastion that takes passwords (`ssh_tunnel_password`), in front of a real HTTPS API
 * (test/peers/http-api.ts): real OpenSSH bastions (test/peers/sshd.ts) that check the password
 * themselves, through PAM's keyboard-interactive, or not at all (keys only), and one that requires
 * a key after the password. The login is the sftp source's (network/ssh/ssh-login.ts), so the bastion's
 * refusals are diagnosed as the sftp server's are, in the ssh_tunnel_* keys.
 */

const TOKEN = 'api-behind-password-bastion/+?&=t';
const WRONG_PASSWORD = 'Wr0ng-bastion/+pw?&y';

let ca: Authority;
let api: HttpApiPeer;
/** Passwords by the password method; logs every forwarded channel. */
let bastion: SshdPeer;
/** Passwords through PAM's keyboard-interactive only; EXPIRED_USER may log in too. */
let pam: SshdPeer;
/** Keys only. */
let keysOnly: SshdPeer;
/** Passwords only (`AuthenticationMethods password`). */
let passwordsOnly: SshdPeer;
/** A password and then a key. */
let twoSteps: SshdPeer;
let key: SshKeyPair;

beforeAll(async () => {
  ca = createCa();
  key = await generateKeyPair({ type: 'ed25519' });
  const forwarding = { allowTcpForwarding: true, authorizedKeys: [key.publicKey] };
  [api, bastion, pam, keysOnly, passwordsOnly, twoSteps] = await Promise.all([
    startApi({ auth: { kind: 'bearer', token: TOKEN }, tls: issueServer(ca, { hosts: ['localhost'] }) }),
    startSshd({ ...forwarding, logLevel: 'DEBUG1' }),
    startSshd({ ...forwarding, keyboardInteractive: true, expiredUser: true }),
    startSshd({ ...forwarding, passwordAuthentication: false }),
    startSshd({ ...forwarding, authenticationMethods: 'password' }),
    startSshd({ ...forwarding, authenticationMethods: 'password,publickey' }),
  ]);
});

afterAll(async () => {
  await Promise.all([
    api?.stop(),
    bastion?.stop(),
    pam?.stop(),
    keysOnly?.stop(),
    passwordsOnly?.stop(),
    twoSteps?.stop(),
  ]);
});

/** The rest source at the API, through `through` as its user with its password. */
function configuration(through: SshdPeer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    auth_method: 'bearer',
    token: TOKEN,
    base_url: `${api.url}/`,
    probe_path: 'health',
    tls_ca_certificate: ca.certificatePem,
    ssh_tunnel_host: through.host,
    ssh_tunnel_port: String(through.port),
    ssh_tunnel_user: through.user,
    ssh_tunnel_password: through.password,
    ssh_tunnel_host_key_fingerprint: through.hostKeyFingerprint,
    ...extra,
  };
}

const probeFailure = (config: Record<string, string>) => probeFailureOf(config, 'rest');
const portOf = (peer: HttpApiPeer) => Number(new URL(peer.url).port);
const logged = (server: SshdPeer, text: string) =>
  server
    .log()
    .split(/\r?\n/)
    .filter((line) => line.includes(text)).length;

/** One line, a hint, and no form of any password, the token or the key anywhere. */
function expectClean(error: Failure, lines: string[]): void {
  const forms = [bastion.password, WRONG_PASSWORD, EXPIRED_PASSWORD, TOKEN].flatMap((s) => leakForms(s));
  expectNoSecretIn(error, lines, [...forms, ...pemLines(key.privateKey)]);
}

describe('a bastion that takes passwords', () => {
  it('ssh_tunnel_password logs in by the password method; every request goes through the bastion', async () => {
    const accepted = logged(bastion, `Accepted password for ${bastion.user}`);
    const channels = bastion.channelsTo(portOf(api));
    const { auth, lines } = await connectSource<RestSource>(configuration(bastion), 'rest');
    try {
      const probe = await auth.probe();
      expect(probe.target).toContain(`via ssh://cauth-sftp@127.0.0.1:${bastion.port}`);
      expect((await auth.source.request('items')).status).toBe(200);
    } finally {
      await auth.close();
    }
    await until(() => logged(bastion, `Accepted password for ${bastion.user}`) > accepted);
    expect(logged(bastion, `Accepted password for ${bastion.user}`)).toBe(accepted + 1);
    expect(bastion.channelsTo(portOf(api))).toBeGreaterThan(channels);
    expect(lines.join('\n')).not.toContain(bastion.password);
    expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
  });

  it("the password answers PAM's prompt when the bastion offers keyboard-interactive only", async () => {
    const accepted = logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`);
    const { auth } = await connectSource<RestSource>(configuration(pam), 'rest');
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
    await until(() => logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`) > accepted);
    expect(logged(pam, `Accepted keyboard-interactive/pam for ${pam.user}`)).toBe(accepted + 1);
  });

  it('a wrong password: exit 3 naming ssh_tunnel_password, sent once', async () => {
    const failed = logged(bastion, `Failed password for ${bastion.user}`);
    const gone = logged(bastion, `Disconnected from authenticating user ${bastion.user}`);
    const { error, lines } = await probeFailure(configuration(bastion, { ssh_tunnel_password: WRONG_PASSWORD }));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_tunnel_password_rejected');
    expect(error.key).toBe('ssh_tunnel_password');
    expect(error.message).toContain(
      `ssh tunnel ssh://cauth-sftp@127.0.0.1:${bastion.port} → localhost:${portOf(api)} failed: the bastion rejected the password for user 'cauth-sftp'`,
    );
    expect(error.hint).toContain("'ssh_tunnel_user'");
    expectClean(error, lines);
    // Once: a second try would count against the account's lockout.
    await until(() => logged(bastion, `Disconnected from authenticating user ${bastion.user}`) > gone);
    expect(logged(bastion, `Failed password for ${bastion.user}`)).toBe(failed + 1);
  });

  it('a wrong password through PAM: the same error', async () => {
    const { error, lines } = await probeFailure(configuration(pam, { ssh_tunnel_password: WRONG_PASSWORD }));
    expect(error.code).toBe('ssh_tunnel_password_rejected');
    expect(error.key).toBe('ssh_tunnel_password');
    expectClean(error, lines);
  });

  it('an expired password: exit 3 naming ssh_tunnel_password, quoting the bastion; no new password is set', async () => {
    const { error, lines } = await probeFailure(
      configuration(pam, { ssh_tunnel_user: EXPIRED_USER, ssh_tunnel_password: EXPIRED_PASSWORD }),
    );
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_tunnel_password_expired');
    expect(error.key).toBe('ssh_tunnel_password');
    expect(error.message).toContain(
      `the password of user '${EXPIRED_USER}' has expired; the bastion asks for a new one`,
    );
    expect(error.hint).toContain("then set 'ssh_tunnel_password' to it");
    expectClean(error, lines);
    const aging = spawnSync('chage', ['-l', EXPIRED_USER], { encoding: 'utf8' }).stdout;
    expect(aging).toMatch(/Last password change\s*:\s*password must be changed/);
  });

  it('a bastion that takes keys only: exit 3 naming ssh_tunnel_password, telling to use a key', async () => {
    const { error, lines } = await probeFailure(configuration(keysOnly));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_tunnel_method_not_offered');
    expect(error.key).toBe('ssh_tunnel_password');
    expect(error.message).toContain(
      "the bastion does not accept password logins for user 'cauth-sftp' (it offers publickey)",
    );
    expect(error.hint).toContain("set 'ssh_tunnel_private_key' in place of 'ssh_tunnel_password'");
    expectClean(error, lines);
  });

  it('a key at a bastion that takes passwords only: exit 3 naming ssh_tunnel_private_key, telling to use the password', async () => {
    const { ssh_tunnel_password: _password, ...withoutPassword } = configuration(passwordsOnly);
    const { error, lines } = await probeFailure({ ...withoutPassword, ssh_tunnel_private_key: key.privateKey });
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_tunnel_method_not_offered');
    expect(error.key).toBe('ssh_tunnel_private_key');
    expect(error.message).toContain(
      "the bastion does not accept publickey logins for user 'cauth-sftp' (it offers password)",
    );
    expect(error.hint).toContain("set 'ssh_tunnel_password' in place of 'ssh_tunnel_private_key'");
    expectClean(error, lines);
  });

  it('a bastion that wants a key after the password: exit 3, the second step named', async () => {
    const { error, lines } = await probeFailure(configuration(twoSteps));
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('ssh_tunnel_more_methods_required');
    expect(error.key).toBe('ssh_tunnel_password');
    expect(error.message).toContain(
      "the bastion accepted the password for user 'cauth-sftp' but also requires publickey",
    );
    expectClean(error, lines);
  });

  it('both secrets, or neither: exit 2 before any connection', async () => {
    const connections = bastion.connections();
    const both = await probeFailure(configuration(bastion, { ssh_tunnel_private_key: key.privateKey }));
    expect(both.error.exitCode).toBe(2);
    expect(both.error.code).toBe('ssh_tunnel_two_secrets');
    expect(both.error.key).toBe('ssh_tunnel_password');
    expectClean(both.error, both.lines);
    const neither = await probeFailure(configuration(bastion, { ssh_tunnel_password: '' }));
    expect(neither.error.exitCode).toBe(2);
    expect(neither.error.key).toBe('ssh_tunnel_private_key');
    expect(neither.error.hint).toContain("'ssh_tunnel_password'");
    expect(bastion.connections()).toBe(connections);
  });
});

describe('a bastion that takes passwords, from the built CLI', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'connector-auth-tunnel-password-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const project = (name: string, extra: Record<string, string> = {}) =>
    initTemplate(
      root,
      name,
      'rest-api',
      { ...configuration(bastion, extra), items_path: 'items' },
      { replaceConfiguration: true },
    );

  it('debug syncs through the bastion; a wrong password is exit 3, one line naming ssh_tunnel_password, nothing written', async () => {
    const good = await project('through-password-bastion');
    const run = await cli(['debug', good]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+25\b/);
    expect(run.stdout + run.stderr).not.toContain(bastion.password);

    const bad = await project('wrong-bastion-password', { ssh_tunnel_password: WRONG_PASSWORD });
    const refused = await cli(['debug', bad]);
    expect(refused.code).toBe(3);
    const errors = refused.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("check 'ssh_tunnel_password'");
    expect(await exists(join(bad, 'files'))).toBe(false);
    for (const form of [...leakForms(WRONG_PASSWORD), ...leakForms(TOKEN)])
      expect(refused.stdout + refused.stderr, 'a secret form leaked').not.toContain(form);
  });
});
