import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Source } from '../../src/sources/index.js';
import { leakForms } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure, tunnelKeys } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';
import { generateKeyPair, start as startSshd, type SshKeyPair, type SshdPeer } from '../peers/sshd.js';

/**
 * The s3 source through an SSH tunnel: a real OpenSSH bastion (TCP forwarding, every channel logged
 * at DEBUG1) in front of an S3 API (s3rver, with Signature Version 4 checked as S3 checks it) over
 * HTTPS, at `https://localhost:<port>` with a certificate naming `localhost` only. The AWS SDK's
 * agent dials the tunnel's 127.0.0.1 listener, so a passing probe proves that TLS checked the
 * endpoint's host name; equal counts of bastion channels and server connections prove that no
 * connection went around the bastion.
 */

const ACCESS_KEY_ID = 'AKIACONNECTORAUTHTUNL';
const SECRET = 'tunnelled/S3+secret?&EXAMPLE=KEY';

let ca: Authority;
let bastion: SshdPeer;
/** TCP forwarding off. */
let closedBastion: SshdPeer;
/** A certificate for localhost only. */
let s3: S3rverPeer;
/** A certificate for files.example.test only. */
let elsewhere: S3rverPeer;
let key: SshKeyPair;
let stranger: SshKeyPair;

beforeAll(async () => {
  ca = createCa();
  [key, stranger] = await Promise.all([generateKeyPair({ type: 'ed25519' }), generateKeyPair({ type: 'ed25519' })]);
  const credentials = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET };
  // Both at https://localhost:<port>; only the first has a certificate that names it.
  const serve = (hosts: string[]) => {
    const issued = issueServer(ca, { hosts });
    return startS3({
      buckets: ['orders'],
      credentials,
      tls: { key: issued.privateKeyPem, cert: issued.certificatePem },
      ca: ca.certificatePem,
      host: 'localhost',
    });
  };
  [bastion, closedBastion, s3, elsewhere] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
      logLevel: 'DEBUG1',
    }),
    startSshd({ authorizedKeys: [key.publicKey], allowTcpForwarding: false, passwordAuthentication: false }),
    serve(['localhost']),
    serve(['files.example.test']),
  ]);
  await s3.putMany('orders', [
    ['exports/2024-01.csv', 'id,amount\n1,10\n'],
    ['exports/2024-02.csv', 'id,amount\n2,20\n'],
  ]);
});

afterAll(async () => {
  await Promise.all([bastion?.stop(), closedBastion?.stop(), s3?.stop(), elsewhere?.stop()]);
});

function configuration(
  server: S3rverPeer,
  through: SshdPeer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    auth_method: 'aws_access_key',
    aws_access_key_id: ACCESS_KEY_ID,
    aws_secret_access_key: SECRET,
    bucket: 'orders',
    prefix: 'exports/',
    endpoint: server.endpoint,
    tls_ca_certificate: ca.certificatePem,
    ...tunnelKeys(through, key),
    ...extra,
  };
}

const portOf = (server: S3rverPeer) => Number(new URL(server.endpoint).port);

function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, [
    ...leakForms(SECRET),
    ...leakForms(key.privateKey),
    ...pemLines(key.privateKey),
    ...pemLines(stranger.privateKey),
  ]);
}

describe('s3 through an SSH tunnel', () => {
  it("lists and reads through the bastion; TLS checks the endpoint's host, not the address dialled", async () => {
    const before = s3.connections();
    const { auth, lines } = await connectSource<S3Source>(configuration(s3, bastion), 's3');
    try {
      const probe = await auth.probe();
      expect(probe.target).toContain(` via ssh://cauth-sftp@127.0.0.1:${bastion.port}`);
      const keys: string[] = [];
      for await (const object of auth.source.list()) keys.push(object.key);
      expect(keys).toEqual(['exports/2024-01.csv', 'exports/2024-02.csv']);
      expect((await auth.source.readFile('exports/2024-02.csv')).toString()).toBe('id,amount\n2,20\n');
      // The peer's own put() connected directly before the source ran.
      expect(s3.connections() - before).toBeGreaterThan(0);
      expect(bastion.channelsTo(portOf(s3))).toBe(s3.connections() - before);
      expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('a certificate for another name is refused through the tunnel: exit 5, showing the certificate read through it too', async () => {
    const before = elsewhere.connections();
    const { error, lines } = await probeFailure(configuration(elsewhere, bastion), 's3');
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('files.example.test');
    expect(elsewhere.connections() - before).toBeGreaterThan(0);
    expect(bastion.channelsTo(portOf(elsewhere))).toBe(elsewhere.connections() - before);
    expectClean(error, lines);
  });

  it('a bastion that forbids forwarding: exit 4 naming ssh_tunnel_user, and the server is never reached', async () => {
    const before = s3.connections();
    const { error, lines } = await probeFailure(configuration(s3, closedBastion), 's3');
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_forwarding_refused');
    expect(error.key).toBe('ssh_tunnel_user');
    expect(s3.connections()).toBe(before);
    expectClean(error, lines);
  });

  it('a key the bastion refuses fails as itself through the SDK: exit 3 naming ssh_tunnel_private_key', async () => {
    const { error, lines } = await probeFailure(
      configuration(s3, bastion, { ssh_tunnel_private_key: stranger.privateKey }),
      's3',
    );
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('ssh_tunnel_private_key');
    expectClean(error, lines);
  });

  it('a tunnel without endpoint is exit 2 naming endpoint, before any connection', async () => {
    const connections = bastion.connections();
    const { endpoint: _endpoint, ...withoutEndpoint } = configuration(s3, bastion);
    const { error } = await probeFailure(withoutEndpoint, 's3');
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('ssh_tunnel_needs_endpoint');
    expect(error.key).toBe('endpoint');
    expect(bastion.connections()).toBe(connections);
  });
});
