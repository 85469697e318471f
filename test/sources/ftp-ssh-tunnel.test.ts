import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FtpSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure, tunnelKeys } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { generateKeyPair, start as startSshd, type SshKeyPair, type SshdPeer } from '../peers/sshd.js';
import { ftpConfiguration, start as startVsftpd, type VsftpdPeer } from '../peers/vsftpd.js';

/**
 * The ftp source through an SSH tunnel: a real OpenSSH server as the bastion (key login, TCP
 * forwarding, every channel logged at DEBUG1) in front of a real vsftpd with explicit FTPS. The
 * control connection and each passive data connection go through the bastion; TLS and the login
 * are checked end to end, the certificate against the real host.
 */

const WRONG = 'Wr0ng/+ftp-tunnel?&y';
const ORDERS = 'id,amount\n1,10\n';

let ca: Authority;
let bastion: SshdPeer;
let server: VsftpdPeer;
let key: SshKeyPair;

beforeAll(async () => {
  ca = createCa();
  key = await generateKeyPair({ type: 'ed25519' });
  [bastion, server] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
      logLevel: 'DEBUG1',
    }),
    startVsftpd({ tls: 'explicit', certificate: issueServer(ca, { hosts: ['127.0.0.1'] }) }),
  ]);
  await mkdir(join(server.dataDir, 'upload'));
  await writeFile(join(server.dataDir, 'upload', 'orders.csv'), ORDERS);
});

afterAll(async () => {
  await Promise.all([bastion?.stop(), server?.stop()]);
});

const configuration = (extra: Record<string, string> = {}) =>
  ftpConfiguration(server, ca.certificatePem, { probe_path: 'upload', ...tunnelKeys(bastion, key), ...extra });

describe('ftp through an SSH tunnel', () => {
  it('the control connection and each passive transfer go through the bastion', async () => {
    const before = { control: bastion.channelsTo(server.port), connections: await server.connections() };
    const { auth } = await connectSource<FtpSource>(configuration(), 'ftp');
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(
        `ftps://cauth-ftp@127.0.0.1:${server.port} (AUTH TLS) via ssh://cauth-sftp@127.0.0.1:${bastion.port}`,
      );
      expect(probe.outcome).toBe('FTP list upload: 1 entry');
      expect((await auth.source.readFile('upload/orders.csv')).toString()).toBe(ORDERS);
      expect(bastion.channelsTo(server.port) - before.control).toBe(1);
      // The listing and the download: two data connections, each a channel to the port vsftpd named.
      const channels = bastion
        .log()
        .split(/\r?\n/)
        .filter((line) => line.includes('server_request_direct_tcpip')).length;
      expect(channels).toBeGreaterThanOrEqual(3);
      expect((await server.connections()) - before.connections).toBe(1);
    } finally {
      await auth.close();
    }
  });

  it('a wrong password through the tunnel: exit 3 naming password, nothing of it anywhere', async () => {
    const { error, lines } = await probeFailure(configuration({ password: WRONG }), 'ftp');
    expect([error.exitCode, error.code, error.key]).toEqual([3, 'ftp_login_rejected', 'password']);
    expectNoSecretIn(error, lines, [...leakForms(server.password), ...leakForms(WRONG), ...pemLines(key.privateKey)]);
  });
});
