import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SftpSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure, tunnelKeys } from '../helpers/source-session.js';
import { freePort } from '../peers/daemon.js';
import {
  generateKeyPair,
  sftpConfiguration,
  start as startSshd,
  type SshKeyPair,
  type SshdPeer,
} from '../peers/sshd.js';

/**
 * The sftp source through an SSH tunnel: one real OpenSSH server as the bastion (key login, TCP
 * forwarding, every channel logged at DEBUG1) in front of another as the SFTP server (password
 * login). The SFTP session runs inside the tunnel, so the server's own host key and login are
 * checked end to end, and the bastion only carries bytes.
 */

const WRONG_PASSWORD = 'Wr0ng/+tunnel?&y';

let bastion: SshdPeer;
/** TCP forwarding off. */
let closedBastion: SshdPeer;
let server: SshdPeer;
let key: SshKeyPair;
let stranger: SshKeyPair;

beforeAll(async () => {
  [key, stranger] = await Promise.all([generateKeyPair({ type: 'ed25519' }), generateKeyPair({ type: 'ed25519' })]);
  [bastion, closedBastion, server] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
      logLevel: 'DEBUG1',
    }),
    startSshd({ authorizedKeys: [key.publicKey], allowTcpForwarding: false, passwordAuthentication: false }),
    startSshd(),
  ]);
  await writeFile(join(server.dataDir, 'orders.csv'), 'id,amount\n1,10\n');
});

afterAll(async () => {
  await Promise.all([bastion?.stop(), closedBastion?.stop(), server?.stop()]);
});

/** A password login to `server`, through the bastion `through`. */
function configuration(through: SshdPeer, extra: Record<string, string> = {}): Record<string, string> {
  return sftpConfiguration(server, { probe_path: server.dataDir, ...tunnelKeys(through, key), ...extra });
}

/** One line, a hint, and no form of either password or either private key anywhere. */
function expectClean(error: Failure, lines: string[]): void {
  const forms = [
    ...leakForms(server.password),
    ...leakForms(WRONG_PASSWORD),
    ...leakForms(key.privateKey),
    ...pemLines(key.privateKey),
    ...pemLines(stranger.privateKey),
  ];
  expectNoSecretIn(error, lines, forms);
}

describe('sftp through an SSH tunnel', () => {
  it("logs in and lists through the bastion, the server's own host key checked inside the tunnel", async () => {
    const before = { channels: bastion.channelsTo(server.port), connections: server.connections() };
    const { auth, lines } = await connectSource<SftpSource>(configuration(bastion), 'sftp');
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(
        `sftp://cauth-sftp@127.0.0.1:${server.port} via ssh://cauth-sftp@127.0.0.1:${bastion.port}`,
      );
      expect(probe.outcome).toMatch(/^SFTP list .+: \d+ entr(y|ies)$/);
      expect((await auth.source.readFile(join(server.dataDir, 'orders.csv'))).toString()).toBe('id,amount\n1,10\n');
      // One SSH connection to the server, and it came through the bastion.
      expect(server.connections() - before.connections).toBe(1);
      expect(bastion.channelsTo(server.port) - before.channels).toBe(1);
      expect(server.log()).toMatch(/Accepted password for cauth-sftp/);
      expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('a server whose host key is not host_key_fingerprint: exit 5, checked through the tunnel before the password is sent', async () => {
    const { error, lines } = await probeFailure(
      configuration(bastion, { host_key_fingerprint: stranger.fingerprint }),
      'sftp',
    );
    expect(error.exitCode).toBe(5);
    expect(error.key).toBe('host_key_fingerprint');
    expect(error.message).toContain(server.hostKeyFingerprint);
    expectClean(error, lines);
  });

  it('a wrong password is the server’s refusal, through the tunnel: exit 3 naming password', async () => {
    const { error, lines } = await probeFailure(configuration(bastion, { password: WRONG_PASSWORD }), 'sftp');
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('password');
    expectClean(error, lines);
  });

  it('a server the bastion cannot reach: exit 4 naming host', async () => {
    const closed = await freePort();
    const { error, lines } = await probeFailure(configuration(bastion, { port: String(closed) }), 'sftp');
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_destination_unreachable');
    expect(error.key).toBe('host');
    expect(error.message).toContain(`the bastion could not connect to 127.0.0.1:${closed}`);
    expectClean(error, lines);
  });

  it('a bastion that forbids forwarding: exit 4 naming ssh_tunnel_user, and the server is never reached', async () => {
    const before = server.connections();
    const { error, lines } = await probeFailure(configuration(closedBastion), 'sftp');
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_forwarding_refused');
    expect(error.key).toBe('ssh_tunnel_user');
    expect(server.connections()).toBe(before);
    expectClean(error, lines);
  });
});
