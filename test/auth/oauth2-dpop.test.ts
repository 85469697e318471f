import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * DPoP (RFC 9449) for oauth2_client_credentials, against oidc-provider's DPoP feature: the token is
 * bound to the run's key (`token_type` DPoP, `cnf.jkt`), every token and API request carries a proof,
 * and the protected resource of the peer checks each proof (key, method, URL, token hash, freshness)
 * and refuses the token without one. With nonces required, as Okta runs DPoP, the first token request
 * is answered `use_dpop_nonce` and the client follows the nonce at once.
 */

let peer: OidcPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer?.stop();
});
afterEach(() => {
  peer.requireDpopNonce(false);
  peer.requireResourceDpopNonce(false);
  peer.resetCounts();
});

const configuration = (extra: Record<string, string> = {}) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: peer.clients.basic.id,
  client_secret: peer.clients.basic.secret,
  scope: 'api:read',
  dpop: 'true',
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

describe('oauth2_client_credentials with DPoP (RFC 9449)', () => {
  it('the token is bound to the run’s key; each API request carries a proof for its method and URL', async () => {
    const h = harness();
    const proofs = peer.dpopProofs.length;
    const { probe, items } = await probeWith(h, configuration());
    expect(probe.outcome).toBe('HTTP 200');
    expect(items.items).toHaveLength(2);
    expect(peer.tokenRequests('client_credentials')).toBe(1);
    expect(peer.dpopProofs.slice(proofs)).toEqual([
      { htm: 'GET', htu: `${peer.apiUrl}/health` },
      { htm: 'GET', htu: `${peer.apiUrl}/items` },
    ]);
    expectNoLeak(h.lines, [peer.clients.basic.secret, ...peer.seen.accessTokens]);
  });

  it('the bound token is refused without a proof of its key: as a Bearer token, or as DPoP with no proof', async () => {
    const h = harness();
    const auth = await connect(h, configuration());
    try {
      await auth.probe();
    } finally {
      await auth.close();
    }
    const token = peer.seen.accessTokens.at(-1)!;
    for (const authorization of [`Bearer ${token}`, `DPoP ${token}`]) {
      const response = await fetch(`${peer.apiUrl}/health`, { headers: { authorization } });
      expect(response.status).toBe(401);
    }
  });

  it('a server that requires a nonce answers use_dpop_nonce first; the same request goes again with it, without a retry warning', async () => {
    peer.requireDpopNonce(true);
    const h = harness();
    const { probe } = await probeWith(h, configuration());
    expect(probe.outcome).toBe('HTTP 200');
    // The front counts both: the one refused for want of a nonce, and the one that got the token.
    expect(peer.tokenRequests('client_credentials')).toBe(2);
    expect(h.lines.filter((line) => line.includes('"WARNING"'))).toEqual([]);
  });

  it('with a signed client assertion (private_key_jwt), the request after use_dpop_nonce carries a new assertion: its jti is good once', async () => {
    peer.requireDpopNonce(true);
    const h = harness();
    const client = peer.clients.privateKeyJwt;
    const { probe } = await probeWith(
      h,
      configuration({
        client_id: client.id,
        client_secret: '',
        token_endpoint_auth: 'private_key_jwt',
        client_assertion_key: client.keyPem,
        client_assertion_key_id: client.keyId,
      }),
    );
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer.tokenRequests('client_credentials')).toBe(2);
  });

  it('an API that demands its own nonce answers 401 with it; the same token goes again with the nonce, and one token serves the run', async () => {
    peer.requireResourceDpopNonce(true);
    const h = harness();
    const statuses = peer.resourceRequests.length;
    const { probe, items } = await probeWith(h, configuration());
    expect(probe.outcome).toBe('HTTP 200');
    expect(items.items).toHaveLength(2);
    // The challenge once; the nonce then rides in every later proof to that origin.
    expect(peer.resourceRequests.slice(statuses).map((r) => r.status)).toEqual([401, 200, 200]);
    expect(peer.tokenRequests('client_credentials')).toBe(1);
  });

  it('an API that hands out the next nonce with each answer: the client takes it, and no further challenge comes', async () => {
    peer.requireResourceDpopNonce(true, { rotate: true });
    const h = harness();
    const statuses = peer.resourceRequests.length;
    const auth = await connect(h, configuration());
    try {
      await auth.probe();
      for (let i = 0; i < 3; i++) expect((await auth.source.fetch('items')).status).toBe(200);
    } finally {
      await auth.close();
    }
    // One challenge at the start; after that each request carries the nonce the last answer gave.
    expect(peer.resourceRequests.slice(statuses).map((r) => r.status)).toEqual([401, 200, 200, 200, 200]);
  });

  it('without dpop the same client gets a Bearer token, unbound', async () => {
    const h = harness();
    const proofs = peer.dpopProofs.length;
    const { probe } = await probeWith(h, configuration({ dpop: 'false' }));
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer.dpopProofs.length).toBe(proofs);
    const response = await fetch(`${peer.apiUrl}/health`, {
      headers: { authorization: `Bearer ${peer.seen.accessTokens.at(-1)!}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('oauth2_refresh_token with DPoP', () => {
  const refreshConfiguration = async (extra: Record<string, string> = {}) => ({
    auth_method: 'oauth2_refresh_token',
    token_url: peer.tokenUrl,
    client_id: peer.clients.refresh.id,
    client_secret: peer.clients.refresh.secret,
    refresh_token: await peer.issueRefreshToken(),
    dpop: 'true',
    base_url: peer.apiUrl,
    probe_path: 'health',
    ...extra,
  });

  it('a confidential client: the refresh grant carries a proof, the access token is DPoP-bound, the rotated refresh token saved', async () => {
    const h = harness();
    const saved: string[] = [];
    const proofs = peer.dpopProofs.length;
    const auth = await connect(h, await refreshConfiguration(), {
      persistConfigurationValue: async (_key, value) => void saved.push(value),
    });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
    } finally {
      await auth.close();
    }
    expect(peer.dpopProofs.slice(proofs)).toEqual([{ htm: 'GET', htu: `${peer.apiUrl}/health` }]);
    expect(saved).toHaveLength(1);
    expect(await peer.refreshTokenActive(saved[0]!)).toBe(true);
    expectNoLeak(h.lines, [peer.clients.refresh.secret, ...peer.seen.accessTokens, ...peer.seen.refreshTokens]);
  });

  it('a public client: exit 2 naming dpop, before any request (its refresh token would be bound to a key that ends with the run)', async () => {
    const before = peer.tokenRequests();
    const { client_secret: _secret, ...publicClient } = await refreshConfiguration();
    const error = await rejection(probeWith(harness(), publicClient));
    expect([error.exitCode, error.key, error.code]).toEqual([2, 'dpop', 'dpop_public_client']);
    expect(peer.tokenRequests()).toBe(before);
  });
});
