import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_AUDIENCE, SERVICE_ACCOUNT, STS_AUDIENCE, start, type GoogleStsPeer } from '../peers/google-sts.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * gcp_workload_identity against test/peers/google-sts.ts (Google's STS token exchange and IAM
 * Credentials generateAccessToken, reproduced): the workload's token read from the file an
 * `external_account` credential configuration names, exchanged for a federated token, used directly
 * or to impersonate a service account; the file read again at each exchange; Google's refusals
 * mapped to the key to fix; no token in any log line.
 */

let peer: GoogleStsPeer;
let dir: string;
beforeAll(async () => {
  peer = await start();
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-gcp-wif-'));
});
afterAll(async () => {
  await peer?.stop();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
async function tokenFile(content: string): Promise<string> {
  const file = join(dir, `token-${++files}`);
  await writeFile(file, content);
  return file;
}

/** A token of the trusted cluster, for the pool provider. */
const workloadToken = (claims: Parameters<GoogleStsPeer['workload']['token']>[0] = {}) => peer.workload.token({ audience: PROVIDER_AUDIENCE, ...claims });

/** The credential configuration `gcloud iam workload-identity-pools create-cred-config` would write. */
function credentialConfiguration(file: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'external_account',
    audience: STS_AUDIENCE,
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    token_url: peer.tokenUrl,
    credential_source: { file, format: { type: 'text' } },
    ...extra,
  });
}

const configuration = (credentials: string, extra: Record<string, string> = {}) => ({
  auth_method: 'gcp_workload_identity',
  gcp_credential_configuration: credentials,
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

const POOL_SUBJECT = `/subject/${'system:serviceaccount:connectors:sync'}`;

describe('gcp_workload_identity', () => {
  it("direct resource access: the workload's token exchanged at STS, the federated token on the API", async () => {
    const h = harness();
    const token = await workloadToken();
    const before = peer.exchanges;
    const { probe } = await probeWith(h, configuration(credentialConfiguration(await tokenFile(token))));
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer.apiCalls.at(-1)).toMatch(new RegExp(`^principal://iam\\.googleapis\\.com/projects/\\d+/locations/global/workloadIdentityPools/connectors${POOL_SUBJECT}$`));
    // One exchange served the probe and the fetch.
    expect(peer.exchanges - before).toBe(1);
    expectNoLeak(h.lines, peer.seen);
  });

  it("impersonation: the federated token buys the service account's own; the file is read again at each exchange", async () => {
    const h = harness();
    const file = await tokenFile(await workloadToken());
    const before = { exchanges: peer.exchanges, impersonations: peer.impersonations };
    const credentials = credentialConfiguration(file, {
      service_account_impersonation_url: peer.impersonationUrl(),
      service_account_impersonation: { token_lifetime_seconds: 1200 },
    });
    const auth = await connect(h, configuration(credentials), { fakeClock: true });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      expect(peer.apiCalls.at(-1)).toBe(`serviceAccount:${SERVICE_ACCOUNT}`);
      expect(auth.credential.description).toBe(
        `GCP workload identity (projects/123456789012/locations/global/workloadIdentityPools/connectors/providers/cluster-1) as service account '${SERVICE_ACCOUNT}'`,
      );
      expect([peer.exchanges - before.exchanges, peer.impersonations - before.impersonations]).toEqual([1, 1]);

      // Past the 1200 s lifetime asked for: a new exchange, with the token the platform wrote since.
      const rewritten = await workloadToken({ lifetimeSeconds: 3599 });
      await writeFile(file, rewritten);
      h.clock.advance(1_201_000);
      expect((await auth.source.fetch('health')).status).toBe(200);
      expect([peer.exchanges - before.exchanges, peer.impersonations - before.impersonations]).toEqual([2, 2]);
      expect(peer.seen).toContain(rewritten);
      expectNoLeak(h.lines, peer.seen);
    } finally {
      await auth.close();
    }
  });

  it('a token file in JSON (credential_source.format json) gives the named field', async () => {
    const h = harness();
    const file = await tokenFile(JSON.stringify({ id_token: await workloadToken(), expires_in: 3600 }));
    const credentials = credentialConfiguration(file);
    const json = JSON.parse(credentials) as { credential_source: Record<string, unknown> };
    json.credential_source.format = { type: 'json', subject_token_field_name: 'id_token' };
    // As a CI secret store often carries it: base64.
    const { probe } = await probeWith(h, configuration(Buffer.from(JSON.stringify(json)).toString('base64')));
    expect(probe.outcome).toBe('HTTP 200');
  });

  it('an audience that names no pool provider: exit 3 naming gcp_credential_configuration (invalid_target), not retried', async () => {
    const before = peer.exchanges;
    const credentials = credentialConfiguration(await tokenFile(await workloadToken()), { audience: `${STS_AUDIENCE}-gone` });
    const error = await rejection(probeWith(harness(), configuration(credentials)));
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'gcp_credential_configuration', 'oauth_invalid_target']);
    expect(error.message).toContain('The target service indicated by the "audience" parameters is invalid');
    expect(peer.exchanges - before).toBe(1);
  });

  it("a token for another audience, or expired: exit 3 naming gcp_credential_configuration with Google's reason", async () => {
    for (const [claims, said] of [
      [{ audience: 'sts.amazonaws.com' }, 'does not match the expected audience'],
      [{ issuedAt: Math.floor(Date.now() / 1000) - 7200 }, 'is stale to sign-in'],
    ] as const) {
      const h = harness();
      const token = await workloadToken(claims);
      const error = await rejection(probeWith(h, configuration(credentialConfiguration(await tokenFile(token)))));
      expect([error.exitCode, error.key, error.code]).toEqual([3, 'gcp_credential_configuration', 'oauth_invalid_grant']);
      expect(error.message).toContain(said);
      expectNoLeak([error.message, String(error.hint), ...h.lines], [token]);
    }
  });

  it('a service account the pool may not impersonate: exit 3, the hint names roles/iam.workloadIdentityUser', async () => {
    const h = harness();
    const other = 'reporting@peer-project.iam.gserviceaccount.com';
    const credentials = credentialConfiguration(await tokenFile(await workloadToken()), { service_account_impersonation_url: peer.impersonationUrl(other) });
    const error = await rejection(probeWith(h, configuration(credentials)));
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'gcp_credential_configuration', 'http_403']);
    expect(error.message).toContain("Permission 'iam.serviceAccounts.getAccessToken' denied");
    expect(error.hint).toContain(`roles/iam.workloadIdentityUser on service account '${other}'`);
    expectNoLeak([error.message, ...h.lines], peer.seen);
  });

  it('configurations it cannot use: exit 2 naming gcp_credential_configuration, before any request', async () => {
    const before = peer.exchanges;
    const file = await tokenFile(await workloadToken());
    const cases: [string, string][] = [
      ['not json at all', 'gcp_credential_configuration_invalid'],
      [JSON.stringify({ type: 'service_account', client_email: 'a@b' }), 'gcp_credential_configuration_invalid'],
      [credentialConfiguration(file, { credential_source: { url: 'http://169.254.169.254/token' } }), 'gcp_credential_source_unsupported'],
      [credentialConfiguration(file, { subject_token_type: 'urn:ietf:params:aws:token-type:aws4_request' }), 'gcp_credential_source_unsupported'],
      [credentialConfiguration(file, { token_url: 'http://sts.example.com/v1/token' }), 'token_url_not_https'],
      [credentialConfiguration(join(dir, 'absent')), 'subject_token_unreadable'],
    ];
    for (const [credentials, code] of cases) {
      const error = await rejection(probeWith(harness(), configuration(credentials)));
      expect([error.exitCode, error.key, error.code]).toEqual([2, 'gcp_credential_configuration', code]);
    }
    expect(peer.exchanges).toBe(before);
  });
});
