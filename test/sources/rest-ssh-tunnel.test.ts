import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestSource } from '../../src/sources/index.js';
import { cli, exists, initTemplate, leakForms, readTree } from '../helpers/cli.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, pemLines, probeFailure, tunnelKeys } from '../helpers/source-session.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { freePort } from '../peers/daemon.js';
import { start as startApi, type HttpApiPeer } from '../peers/http-api.js';
import { generateKeyPair, start as startSshd, type SshKeyPair, type SshdPeer } from '../peers/sshd.js';

/**
 * The rest source through an SSH tunnel: a real OpenSSH bastion (test/peers/sshd.ts) in front of a
 * real HTTPS API (test/peers/http-api.ts) whose certificate names `localhost` only. undici dials the
 * tunnel's 127.0.0.1 listener, so a passing probe proves that TLS checked base_url's host name, not
 * the address dialled. The bastion logs every channel it opens (LogLevel DEBUG1), and the API counts
 * the connections it accepts: equal counts prove that every connection, the look-only handshake
 * that names an untrusted certificate included, went through the bastion.
 */

const TOKEN = 'tunnelled-api-token/+?&=x';

let ca: Authority;
let bastion: SshdPeer;
/** TCP forwarding off. */
let closedBastion: SshdPeer;
/** HTTPS, a certificate for `localhost`. */
let api: HttpApiPeer;
/** HTTPS, a certificate for api.example.test only. */
let elsewhere: HttpApiPeer;
/** Plain http on 127.0.0.1: another origin, reached directly. */
let other: HttpApiPeer;
let key: SshKeyPair;
let stranger: SshKeyPair;

beforeAll(async () => {
  ca = createCa();
  [key, stranger] = await Promise.all([generateKeyPair({ type: 'ed25519' }), generateKeyPair({ type: 'ed25519' })]);
  const bearer = { kind: 'bearer', token: TOKEN } as const;
  [bastion, closedBastion, api, elsewhere, other] = await Promise.all([
    startSshd({
      authorizedKeys: [key.publicKey],
      allowTcpForwarding: true,
      passwordAuthentication: false,
      logLevel: 'DEBUG1',
    }),
    startSshd({ authorizedKeys: [key.publicKey], allowTcpForwarding: false, passwordAuthentication: false }),
    startApi({ auth: bearer, tls: issueServer(ca, { hosts: ['localhost'] }) }),
    startApi({ auth: bearer, tls: issueServer(ca, { hosts: ['api.example.test'] }) }),
    startApi({ auth: bearer }),
  ]);
});

afterAll(async () => {
  await Promise.all([bastion?.stop(), closedBastion?.stop(), api?.stop(), elsewhere?.stop(), other?.stop()]);
});

function configuration(
  peer: { url: string },
  through: SshdPeer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    auth_method: 'bearer',
    token: TOKEN,
    base_url: `${peer.url}/`,
    probe_path: 'health',
    tls_ca_certificate: ca.certificatePem,
    ...tunnelKeys(through, key),
    ...extra,
  };
}

const portOf = (peer: HttpApiPeer) => Number(new URL(peer.url).port);

/** One line, a hint, and no form of the token or of either private key anywhere. */
function expectClean(error: Failure, lines: string[]): void {
  expectNoSecretIn(error, lines, [
    ...leakForms(TOKEN),
    ...leakForms(key.privateKey),
    ...pemLines(key.privateKey),
    ...pemLines(stranger.privateKey),
  ]);
}

describe('rest through an SSH tunnel', () => {
  it("probe and update() requests go through the bastion; TLS checks base_url's host, not the address dialled", async () => {
    const { auth, lines } = await connectSource<RestSource>(configuration(api, bastion), 'rest');
    try {
      const probe = await auth.probe();
      expect(probe.target).toBe(`GET ${api.url}/health via ssh://cauth-sftp@127.0.0.1:${bastion.port}`);
      expect(probe.outcome).toBe('HTTP 200');
      // Both kinds of request: fetch-shaped (json) and the lean one the typed clients use.
      expect((await auth.source.json<{ items: unknown[] }>('items')).items).toHaveLength(10);
      const reply = await auth.source.request('items?cursor=20');
      expect(reply.status).toBe(200);
      expect((JSON.parse(await reply.text()) as { items: unknown[] }).items).toHaveLength(5);
      expect(api.requests.map((r) => r.headers.host)).toEqual(api.requests.map(() => `localhost:${portOf(api)}`));
      expect(api.connections()).toBeGreaterThan(0);
      expect(bastion.channelsTo(portOf(api))).toBe(api.connections());
      expect(lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
    } finally {
      await auth.close();
    }
  });

  it('another origin is reached directly, without the credential', async () => {
    const { auth } = await connectSource<RestSource>(configuration(api, bastion), 'rest');
    try {
      const before = other.requests.length;
      const response = await auth.source.fetch(`${other.url}/health`);
      expect(response.status).toBe(401);
      await response.body?.cancel();
      expect(other.requests[before]!.headers.authorization).toBeUndefined();
      expect(bastion.channelsTo(portOf(other))).toBe(0);
    } finally {
      await auth.close();
    }
  });

  it('a certificate for another name is refused through the tunnel: exit 5, showing the certificate read through it too', async () => {
    const { error, lines } = await probeFailure(configuration(elsewhere, bastion), 'rest');
    expect(error.exitCode).toBe(5);
    expect(error.code).toBe('tls_host_mismatch');
    expect(error.message).toContain('names api.example.test');
    expect(elsewhere.requests).toEqual([]);
    // The failed handshake and the look-only one that read the certificate.
    expect(elsewhere.connections()).toBe(2);
    expect(bastion.channelsTo(portOf(elsewhere))).toBe(2);
    expectClean(error, lines);
  });

  it('a bastion that forbids forwarding: exit 4 naming ssh_tunnel_user, and the API is never reached', async () => {
    const before = api.connections();
    const { error, lines } = await probeFailure(configuration(api, closedBastion), 'rest');
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_forwarding_refused');
    expect(error.key).toBe('ssh_tunnel_user');
    expect(api.connections()).toBe(before);
    expectClean(error, lines);
  });

  it('an API the bastion cannot reach: exit 4 naming base_url', async () => {
    const closed = await freePort();
    const { error, lines } = await probeFailure(configuration({ url: `https://localhost:${closed}` }, bastion), 'rest');
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('ssh_tunnel_destination_unreachable');
    expect(error.key).toBe('base_url');
    expect(error.message).toContain(`the bastion could not connect to localhost:${closed}`);
    expectClean(error, lines);
  });

  it('the bastion login and host key fail as themselves through the HTTP client: exit 3 and 5 naming the ssh_tunnel_* key', async () => {
    const rejected = await probeFailure(
      configuration(api, bastion, { ssh_tunnel_private_key: stranger.privateKey }),
      'rest',
    );
    expect(rejected.error.exitCode).toBe(3);
    expect(rejected.error.key).toBe('ssh_tunnel_private_key');
    expectClean(rejected.error, rejected.lines);

    const impostor = await probeFailure(
      configuration(api, bastion, { ssh_tunnel_host_key_fingerprint: stranger.fingerprint }),
      'rest',
    );
    expect(impostor.error.exitCode).toBe(5);
    expect(impostor.error.key).toBe('ssh_tunnel_host_key_fingerprint');
    expect(impostor.error.message).toContain(
      `the bastion's host key (ssh-ed25519 ${bastion.hostKeyFingerprint}) does not match`,
    );
    expectClean(impostor.error, impostor.lines);
  });

  it('an incomplete tunnel configuration is exit 2 before any connection', async () => {
    const connections = bastion.connections();
    const { error } = await probeFailure(configuration(api, bastion, { ssh_tunnel_user: '' }), 'rest');
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('ssh_tunnel_user');
    expect(bastion.connections()).toBe(connections);
  });
});

describe('rest through an SSH tunnel, from the built CLI', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'connector-auth-tunnel-cli-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const project = (name: string, extra: Record<string, string> = {}) =>
    initTemplate(
      root,
      name,
      'rest-api',
      { ...configuration(api, bastion, extra), items_path: 'items' },
      { replaceConfiguration: true },
    );

  it('debug syncs the rest-api template through the bastion', async () => {
    const dir = await project('tunnelled');
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+25\b/);
    expect(run.stderr).toContain(`via ssh://cauth-sftp@127.0.0.1:${bastion.port}`);
  });

  it('a key the bastion refuses: exit 3, one error line naming ssh_tunnel_private_key, nothing written, no key material anywhere', async () => {
    const dir = await project('refused', { ssh_tunnel_private_key: stranger.privateKey });
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    const errors = run.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("check 'ssh_tunnel_private_key'");
    expect(await exists(join(dir, 'files'))).toBe(false);
    const everything = run.stdout + run.stderr + (await readTree(dir));
    for (const form of [...leakForms(TOKEN), ...pemLines(stranger.privateKey)])
      expect(run.stdout + run.stderr, 'a secret form leaked').not.toContain(form);
    // configuration.json holds the key itself; nothing else under the project does.
    expect(everything.split(pemLines(stranger.privateKey)[0]!).length - 1).toBe(1);
  });
});
