import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * oauth2_client_credentials with `token_endpoint_auth: federated_assertion` (workload identity
 * federation, as Microsoft Entra ID does it): the client's assertion is a service account token the
 * platform writes to `client_assertion_file`. Against the oidc-provider peer, whose front server
 * checks the token as a federated credential would (test/peers/workload-federation.ts) before the
 * real provider issues the access token.
 */

let peer: OidcPeer;
let dir: string;
beforeAll(async () => {
  peer = await start();
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-federated-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  peer.resetCounts();
  peer.setAccessTokenTtl(300);
});

let files = 0;
/** A fresh token file, as the kubelet projects it. */
async function tokenFile(token: string): Promise<string> {
  const file = join(dir, `token-${++files}`);
  await writeFile(file, `${token}\n`);
  return file;
}

const federated = (file: string, extra: Record<string, string> = {}) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: peer.clients.federated.id,
  token_endpoint_auth: 'federated_assertion',
  client_assertion_file: file,
  scope: 'api:read',
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

describe('oauth2_client_credentials with a federated assertion', () => {
  it("the workload's token authenticates the client, and the file is read again for each token request", async () => {
    const h = harness();
    const first = await peer.workload.token();
    const file = await tokenFile(first);
    // An old credential_issued_at: nothing in configuration.json to rotate, so no warning.
    const auth = await connect(h, federated(file, { credential_issued_at: '2020-01-01' }), { fakeClock: true });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      expect(peer.seen.assertions.at(-1)).toBe(first);
      expect(peer.tokenRequests('client_credentials')).toBe(1);

      // The platform rewrites the file before the token expires; the next token request sends the new one.
      const second = await peer.workload.token({ lifetimeSeconds: 3599 });
      await writeFile(file, second);
      h.clock.advance(301_000);
      expect((await auth.source.fetch('health')).status).toBe(200);
      expect(peer.tokenRequests('client_credentials')).toBe(2);
      expect(peer.seen.assertions.at(-1)).toBe(second);
      expectNoLeak(h.lines, [first, second, ...peer.seen.accessTokens]);
      expect(h.lines.join('\n')).not.toContain('credential_issued_at');
    } finally {
      await auth.close();
    }
  });

  it('a token of a subject the federated credential does not name: exit 3 naming client_assertion_file, quoting AADSTS70021', async () => {
    const h = harness();
    const token = await peer.workload.token({ subject: 'system:serviceaccount:default:other' });
    const error = await rejection(probeWith(h, federated(await tokenFile(token))));
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'client_assertion_file', 'oauth_invalid_client']);
    expect(error.message).toContain('AADSTS70021: No matching federated identity record found');
    expect(error.message).toContain("Assertion Subject: 'system:serviceaccount:default:other'");
    // A refusal is final: asking again with the same assertion cannot help.
    expect(peer.tokenRequests('client_credentials')).toBe(1);
    expectNoLeak([error.message, String(error.hint), ...h.lines], [token]);
  });

  it('an expired token (the platform stopped rewriting the file): exit 3 naming client_assertion_file', async () => {
    const h = harness();
    const token = await peer.workload.token({ issuedAt: Math.floor(Date.now() / 1000) - 7200 });
    const error = await rejection(probeWith(h, federated(await tokenFile(token))));
    expect([error.exitCode, error.key]).toEqual([3, 'client_assertion_file']);
    expect(error.message).toContain('AADSTS700024: Client assertion is not within its valid time range');
    expectNoLeak([error.message, ...h.lines], [token]);
  });

  it("a token signed by another cluster's key: exit 3 naming client_assertion_file", async () => {
    const h = harness();
    const token = await peer.workload.token({ foreignKey: true });
    const error = await rejection(probeWith(h, federated(await tokenFile(token))));
    expect([error.exitCode, error.key]).toEqual([3, 'client_assertion_file']);
    expect(error.message).toContain('AADSTS700027');
  });

  it('a missing or empty file: exit 2 naming client_assertion_file, and no token request', async () => {
    for (const [file, code] of [
      [join(dir, 'absent'), 'client_assertion_unreadable'],
      [await tokenFile(''), 'client_assertion_empty'],
    ] as const) {
      const error = await rejection(probeWith(harness(), federated(file)));
      expect([error.exitCode, error.key, error.code]).toEqual([2, 'client_assertion_file', code]);
      expect(error.hint).toContain('client_assertion_file');
    }
    expect(peer.tokenRequests()).toBe(0);
  });

  it('federated_assertion needs client_assertion_file and no client_secret', async () => {
    const { client_assertion_file: _file, ...withoutFile } = federated('unused');
    const error = await rejection(connect(harness(), withoutFile));
    expect([error.exitCode, error.key]).toEqual([2, 'client_assertion_file']);
    expect(error.message).toContain('needed when token_endpoint_auth is federated_assertion');
  });
});
