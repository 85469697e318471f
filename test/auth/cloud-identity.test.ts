import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { start, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { start as startHttpApi } from '../peers/http-api.js';
import { bearerOf, connect, expectNoLeak, harness, probeWith, rejection, request } from './support.js';

/**
 * gcp_metadata and azure_managed_identity against the peer that reproduces the two clouds' metadata
 * token endpoints (test/peers/cloud-metadata.ts): what each request carries, what each answer means,
 * the retries each cloud documents, and one token per lifetime.
 */

let peer: CloudMetadataPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer.stop();
});
afterEach(() => peer.reset());

const gcp = (extra: Record<string, string> = {}) => ({
  auth_method: 'gcp_metadata',
  metadata_endpoint: peer.url,
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

const azure = (extra: Record<string, string> = {}) => ({
  auth_method: 'azure_managed_identity',
  resource: peer.apiResource,
  metadata_endpoint: peer.url,
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

const tokens = () => peer.issued.map((t) => t.value);

describe('gcp_metadata against the GCE metadata token endpoint', () => {
  it('the default account: one token, asked with Metadata-Flavor: Google, serves the probe and the fetch', async () => {
    const h = harness();
    const { probe, items } = await probeWith(h, gcp());
    expect(probe.outcome).toBe('HTTP 200');
    expect(items.items).toHaveLength(2);
    expect(peer.tokenRequests).toHaveLength(1);
    const [asked] = peer.tokenRequests;
    expect(asked!.path).toBe('/computeMetadata/v1/instance/service-accounts/default/token');
    expect(asked!.headers['metadata-flavor']).toBe('Google');
    expect(asked!.query).toEqual({});
    expect(peer.apiRequests.map((r) => r.status)).toEqual([200, 200]);
    expectNoLeak(h.lines, tokens());
  });

  it('scope: space- or comma-separated in the key, comma-separated in `scopes`', async () => {
    const h = harness();
    await probeWith(
      h,
      gcp({
        scope: 'https://www.googleapis.com/auth/bigquery.readonly https://www.googleapis.com/auth/devstorage.read_only',
      }),
    );
    expect(peer.tokenRequests[0]!.query.scopes).toBe(
      'https://www.googleapis.com/auth/bigquery.readonly,https://www.googleapis.com/auth/devstorage.read_only',
    );
    expect(peer.issued.at(-1)!.audience).toEqual([
      'https://www.googleapis.com/auth/bigquery.readonly',
      'https://www.googleapis.com/auth/devstorage.read_only',
    ]);
  });

  it('gcp_service_account names an attached account by its email', async () => {
    const h = harness();
    const email = peer.gcpAccounts[0]!;
    await probeWith(h, gcp({ gcp_service_account: email }));
    expect(peer.tokenRequests[0]!.path).toBe(
      `/computeMetadata/v1/instance/service-accounts/${encodeURIComponent(email)}/token`,
    );
    expect(peer.issued.at(-1)!.identity).toBe(email);
  });

  it('an account not attached to the workload: 404, exit 3 naming gcp_service_account, not retried', async () => {
    const h = harness();
    const error = await rejection(
      probeWith(h, gcp({ gcp_service_account: 'other@example-project.iam.gserviceaccount.com' })),
    );
    expect(error.name).toBe('AuthenticationError');
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('gcp_service_account');
    expect(error.message).toContain(`GET ${peer.url}/computeMetadata/v1/instance/service-accounts/`);
    expect(error.message).toContain('HTTP 404');
    expect(peer.tokenRequests).toHaveLength(1);
    expect(peer.apiRequests).toHaveLength(0);
  });

  it('something at metadata_endpoint that is not the metadata server (no Metadata-Flavor in the answer): exit 4 naming metadata_endpoint', async () => {
    const impostor = await startHttpApi({ auth: { kind: 'bearer', token: 'unused-token-value' } });
    try {
      const h = harness();
      const error = await rejection(probeWith(h, gcp({ metadata_endpoint: impostor.url })));
      expect(error.exitCode).toBe(4);
      expect(error.key).toBe('metadata_endpoint');
      expect(error.code).toBe('not_a_metadata_server');
      expect(error.message).toContain("without 'Metadata-Flavor: Google'");
      // Not retried: a different server will not become the metadata server.
      expect(impostor.requests).toHaveLength(1);
    } finally {
      await impostor.stop();
    }
  });

  it('a 200 without the header is refused too: a token from an impostor is never used', async () => {
    const h = harness();
    peer.failNext(
      200,
      1,
      JSON.stringify({ access_token: 'ya29.from-an-impostor-123456', expires_in: 3599, token_type: 'Bearer' }),
      { 'content-type': 'application/json' },
    );
    const error = await rejection(probeWith(h, gcp()));
    expect(error.code).toBe('not_a_metadata_server');
    expect(peer.apiRequests).toHaveLength(0);
  });

  it('503 from the metadata server is retried with backoff; the third answer gives the token', async () => {
    const h = harness();
    peer.failNext(503, 2, 'Service Unavailable', { 'metadata-flavor': 'Google' });
    const { probe } = await probeWith(h, gcp());
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer.tokenRequests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(h.lines.filter((l) => l.includes('retrying in'))).toHaveLength(2);
  });

  it('nothing listening (not on Google Cloud): exit 4 naming metadata_endpoint, the hint says where the method works', async () => {
    const h = harness();
    const closed = await startHttpApi({ auth: { kind: 'bearer', token: 'x' } });
    const url = closed.url;
    await closed.stop();
    const error = await rejection(probeWith(h, gcp({ metadata_endpoint: url, timeout_seconds: '2' })));
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('metadata_endpoint');
    expect(error.hint).toContain('only on Google Cloud');
    expect(error.hint).toContain('service_account_key');
  });

  it('metadata_endpoint over plain http off a link-local or loopback host: exit 2 before any request', async () => {
    const h = harness();
    const error = await rejection(probeWith(h, gcp({ metadata_endpoint: 'http://metadata.example.com' })));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('metadata_endpoint');
    expect(error.message).toContain(
      "key 'metadata_endpoint' must be https://, or http:// on a link-local or loopback host",
    );
  });

  it('one token per lifetime: 200 concurrent callers at expiry make one request; expires_in is honoured', async () => {
    const h = harness();
    peer.setTokenTtl(300);
    const a = await connect(h, gcp(), { fakeClock: true });
    try {
      await a.credential.prepare!();
      const first = tokens().at(-1);
      h.clock.advance(250_000);
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests).toHaveLength(1);
      h.clock.advance(51_000); // past expiry
      const seen = await Promise.all(
        Array.from({ length: 200 }, async () => {
          const r = request(peer.apiUrl);
          await a.credential.httpRequest!.authorize(r);
          return bearerOf(r);
        }),
      );
      expect(peer.tokenRequests).toHaveLength(2);
      expect(new Set(seen).size).toBe(1);
      expect(seen[0]).not.toBe(first);
    } finally {
      await a.close();
    }
  });
});

describe('azure_managed_identity against Azure IMDS', () => {
  it('the system-assigned identity: api-version, resource and Metadata: true; one token serves the probe and the fetch', async () => {
    const h = harness();
    const { probe, items } = await probeWith(h, azure());
    expect(probe.outcome).toBe('HTTP 200');
    expect(items.items).toHaveLength(2);
    expect(peer.tokenRequests).toHaveLength(1);
    const [asked] = peer.tokenRequests;
    expect(asked!.path).toBe('/metadata/identity/oauth2/token');
    expect(asked!.headers.metadata).toBe('true');
    expect(asked!.query).toEqual({ 'api-version': '2018-02-01', resource: peer.apiResource });
    expectNoLeak(h.lines, tokens());
  });

  it('a user-assigned identity by azure_client_id, azure_object_id or azure_resource_id', async () => {
    const identity = peer.azure.userAssigned[0]!;
    for (const [key, param, value] of [
      ['azure_client_id', 'client_id', identity.clientId],
      ['azure_object_id', 'object_id', identity.objectId],
      ['azure_resource_id', 'msi_res_id', identity.resourceId],
    ] as const) {
      peer.reset();
      const { probe } = await probeWith(harness(), azure({ [key]: value }));
      expect(probe.outcome).toBe('HTTP 200');
      expect(peer.tokenRequests[0]!.query[param]).toBe(value);
      expect(peer.issued.at(-1)!.identity).toBe(identity.clientId);
    }
  });

  it('an identity not assigned to the machine: "Identity not found", exit 3 naming azure_client_id, not retried', async () => {
    const h = harness();
    const error = await rejection(probeWith(h, azure({ azure_client_id: '11111111-2222-3333-4444-555555555555' })));
    expect(error.name).toBe('AuthenticationError');
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('azure_client_id');
    expect(error.message).toContain('Identity not found');
    expect(peer.tokenRequests).toHaveLength(1);
  });

  it('no system-assigned identity and no user-assigned one named: exit 3 naming azure_client_id', async () => {
    const bare = await start({ azureSystemAssigned: false });
    try {
      const error = await rejection(probeWith(harness(), azure({ metadata_endpoint: bare.url })));
      expect(error.exitCode).toBe(3);
      expect(error.key).toBe('azure_client_id');
      expect(error.message).toContain('Azure system-assigned managed identity');
    } finally {
      await bare.stop();
    }
  });

  it('a resource Entra ID does not know: invalid_resource, exit 3 naming resource', async () => {
    const error = await rejection(probeWith(harness(), azure({ resource: 'api://no-such-api' })));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('resource');
    expect(error.code).toBe('oauth_invalid_resource');
    expect(error.message).toContain('AADSTS500011');
  });

  it('a token for another resource: the API answers 401 and the error names resource', async () => {
    const error = await rejection(probeWith(harness(), azure({ resource: 'https://management.azure.com/' })));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('resource');
    expect(peer.apiRequests.map((r) => r.status)).toContain(401);
  });

  it('resource missing, or two identity keys at once: exit 2 before any request', async () => {
    const { resource: _, ...withoutResource } = azure();
    const missing = await rejection(probeWith(harness(), withoutResource));
    expect(missing.exitCode).toBe(2);
    expect(missing.key).toBe('resource');
    const identity = peer.azure.userAssigned[0]!;
    const both = await rejection(
      probeWith(harness(), azure({ azure_client_id: identity.clientId, azure_object_id: identity.objectId })),
    );
    expect(both.exitCode).toBe(2);
    expect(both.key).toBe('azure_client_id');
    expect(peer.tokenRequests).toHaveLength(0);
  });

  it('404 (IMDS updating), 410 (restarting), 429 and 500 are retried, as Azure documents', async () => {
    const h = harness();
    for (const status of [404, 410, 429, 500]) {
      peer.reset();
      peer.failNext(status, 1, JSON.stringify({ error: 'temporarily', error_description: 'try later' }), {
        'content-type': 'application/json',
      });
      const { probe } = await probeWith(h, azure());
      expect(probe.outcome).toBe('HTTP 200');
      expect(peer.tokenRequests.map((r) => r.status)).toEqual([status, 200]);
    }
  });

  it('expires_in comes as a string ("3599"): the token lives that long, then one new request', async () => {
    const h = harness();
    peer.setTokenTtl(600);
    const a = await connect(h, azure(), { fakeClock: true });
    try {
      await a.credential.prepare!();
      h.clock.advance(560_000); // short of 600 − 5% = 570 s
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests).toHaveLength(1);
      h.clock.advance(40_000); // past expiry
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests).toHaveLength(2);
      expect(h.lines.some((l) => l.includes('valid for 600s (expires_in)'))).toBe(true);
    } finally {
      await a.close();
    }
  });
});
