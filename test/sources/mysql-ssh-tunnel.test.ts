import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MysqlSource } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure, tunnelKeys } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import {
  MARIADB_START_TIMEOUT_MS,
  mysqlConfiguration,
  start as startMariadb,
  type MariadbPeer,
} from '../peers/mariadb.js';
import { generateKeyPair, start as startSshd, type SshKeyPair, type SshdPeer } from '../peers/sshd.js';

/**
 * The mysql source through an SSH tunnel: a real OpenSSH server as the bastion (key login, TCP
 * forwarding, channels logged at DEBUG1) in front of a real MariaDB over verified TLS. mysql2
 * connects to the tunnel's 127.0.0.1 listener, and the certificate is still checked against the
 * real `host`: a certificate for another name fails through the tunnel as it does directly.
 */

const ALICE = { name: 'alice', password: 'My-Tunnel/+pw?&x' };
const WRONG = 'Wr0ng/+my-tunnel?&y';

let ca: Authority;
let bastion: SshdPeer;
let server: MariadbPeer;
let mismatch: MariadbPeer;
let key: SshKeyPair;

beforeAll(async () => {
  ca = createCa();
  key = await generateKeyPair({ type: 'ed25519' });
  [bastion, server, mismatch] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
      logLevel: 'DEBUG1',
    }),
    startMariadb({ ssl: issueServer(ca, { hosts: ['127.0.0.1'] }), database: 'sales', users: [ALICE] }),
    startMariadb({ ssl: issueServer(ca, { hosts: ['db.example.test'] }), database: 'sales', users: [ALICE] }),
  ]);
}, MARIADB_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([bastion?.stop(), server?.stop(), mismatch?.stop()]);
});

const configuration = (peer: MariadbPeer, extra: Record<string, string> = {}) =>
  mysqlConfiguration(peer, ALICE, ca.certificatePem, { ...tunnelKeys(bastion, key), ...extra });

const forms = () => [...leakForms(ALICE.password), ...leakForms(WRONG), ...pemLines(key.privateKey)];

describe('mysql through an SSH tunnel', () => {
  it('logs in over TLS through the bastion and serves queries', async () => {
    const before = bastion.channelsTo(server.port);
    const { auth } = await connectSource<MysqlSource>(configuration(server), 'mysql');
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(
        `mysql://alice@127.0.0.1:${server.port}/sales (TLS) via ssh://cauth-sftp@127.0.0.1:${bastion.port}`,
      );
      expect(await auth.source.query('SELECT ? + 1 AS two', [1])).toEqual([{ two: 2 }]);
      // The probe's connection and the query's.
      expect(bastion.channelsTo(server.port) - before).toBe(2);
    } finally {
      await auth.close();
    }
  });

  it('a certificate for another name fails through the tunnel too', async () => {
    const { error, lines } = await probeFailure(configuration(mismatch), 'mysql');
    expect([error.exitCode, error.code, error.key]).toEqual([5, 'tls_host_mismatch', 'host']);
    expectNoSecretIn(error, lines, forms());
  });

  it('a wrong password through the tunnel: exit 3 naming password', async () => {
    const { error, lines } = await probeFailure(configuration(server, { password: WRONG }), 'mysql');
    expect([error.exitCode, error.code, error.key]).toEqual([3, 'mysql_password_rejected', 'password']);
    expectNoSecretIn(error, lines, forms());
  });
});
