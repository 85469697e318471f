import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startMetadata, type CloudMetadataPeer } from '../peers/cloud-metadata.js';
import { PROVIDER_AUDIENCE, SERVICE_ACCOUNT, STS_AUDIENCE, start, type GoogleStsPeer } from '../peers/google-sts.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * gcp_workload_identity against test/peers/google-sts.ts (Google's STS token exchange and IAM
 * Credentials generateAccessToken, reproduced): the workload's token read from the file an
 * `external_account` credential configuration names, exchanged for a federated token, used directly
 * or to impersonate a service account; the file read again at each exchange; Google's refusals
 * mapped to the key to fix; no token in any log line. URL sources: Azure's instance metadata service
 * (test/peers/cloud-metadata.ts) handing out a token the pool trusts, as in Google's Azure setup, and
 * a token service that wants a bearer token of its own (as a CI runner's does).
 */

/** What the token service behind a URL source wants in `Authorization`: a credential of its own. */
const REQUEST_TOKEN = 'ci-request-token/+?&=Zq81';

let peer: GoogleStsPeer;
let metadata: CloudMetadataPeer;
/** A CI runner's token service: `/token` answers `{"value": …}`, `/token.txt` the token as text; both want REQUEST_TOKEN. */
let tokenService: Server;
let tokenServiceUrl: string;
/** The token the token service hands out next; its requests. */
let served = '';
const tokenServiceRequests: { path: string; authorization: string | undefined }[] = [];
let dir: string;
beforeAll(async () => {
  [peer, metadata] = await Promise.all([start(), startMetadata()]);
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-gcp-wif-'));
  tokenService = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    tokenServiceRequests.push({ path, authorization: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${REQUEST_TOKEN}`)
      return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
    if (path === '/token')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ count: 1, value: served }));
    if (path === '/token.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`${served}\n`);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => tokenService.listen(0, '127.0.0.1', resolve));
  tokenServiceUrl = `http://127.0.0.1:${(tokenService.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([peer?.stop(), metadata?.stop(), new Promise((resolve) => tokenService?.close(resolve))]);
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
async function tokenFile(content: string): Promise<string> {
  const file = join(dir, `token-${++files}`);
  await writeFile(file, content);
  return file;
}

/** A token of the trusted cluster, for the pool provider. */
const workloadToken = (claims: Parameters<GoogleStsPeer['workload']['token']>[0] = {}) =>
  peer.workload.token({ audience: PROVIDER_AUDIENCE, ...claims });

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
    expect(peer.apiCalls.at(-1)).toMatch(
      new RegExp(
        `^principal://iam\\.googleapis\\.com/projects/\\d+/locations/global/workloadIdentityPools/connectors${POOL_SUBJECT}$`,
      ),
    );
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
    // A narrower scope than cloud-platform: the federated token still needs cloud-platform to call
    // generateAccessToken (the peer refuses it otherwise, as Google does); the final token gets this one.
    const auth = await connect(
      h,
      configuration(credentials, { scope: 'https://www.googleapis.com/auth/bigquery.readonly' }),
      { fakeClock: true },
    );
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      expect(peer.apiCalls.at(-1)).toBe(`serviceAccount:${SERVICE_ACCOUNT}`);
      expect(peer.apiScopes.at(-1)).toEqual(['https://www.googleapis.com/auth/bigquery.readonly']);
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
    const credentials = credentialConfiguration(await tokenFile(await workloadToken()), {
      audience: `${STS_AUDIENCE}-gone`,
    });
    const error = await rejection(probeWith(harness(), configuration(credentials)));
    expect([error.exitCode, error.key, error.code]).toEqual([
      3,
      'gcp_credential_configuration',
      'oauth_invalid_target',
    ]);
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
      expect([error.exitCode, error.key, error.code]).toEqual([
        3,
        'gcp_credential_configuration',
        'oauth_invalid_grant',
      ]);
      expect(error.message).toContain(said);
      expectNoLeak([error.message, String(error.hint), ...h.lines], [token]);
    }
  });

  it('a service account the pool may not impersonate: exit 3, the hint names roles/iam.workloadIdentityUser', async () => {
    const h = harness();
    const other = 'reporting@peer-project.iam.gserviceaccount.com';
    const credentials = credentialConfiguration(await tokenFile(await workloadToken()), {
      service_account_impersonation_url: peer.impersonationUrl(other),
    });
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
      [
        credentialConfiguration(file, { credential_source: { executable: { command: '/usr/bin/token' } } }),
        'gcp_credential_source_unsupported',
      ],
      [
        credentialConfiguration(file, { credential_source: { url: 'http://tokens.example.com/token' } }),
        'gcp_credential_configuration_invalid',
      ],
      [
        credentialConfiguration(file, { credential_source: { file, url: `${tokenServiceUrl}/token` } }),
        'gcp_credential_configuration_invalid',
      ],
      [
        credentialConfiguration(file, {
          credential_source: { url: `${tokenServiceUrl}/token`, headers: { Authorization: 7 } },
        }),
        'gcp_credential_configuration_invalid',
      ],
      [
        credentialConfiguration(file, { subject_token_type: 'urn:ietf:params:aws:token-type:aws4_request' }),
        'gcp_credential_configuration_invalid',
      ],
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

describe('gcp_workload_identity with a URL credential source', () => {
  /** As Google's setup for Azure writes it: IMDS's token for the app the pool provider trusts, its access_token field. */
  const azureSource = (extra: Record<string, unknown> = {}) => ({
    url: `${metadata.url}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=api://connector-api`,
    headers: { Metadata: 'True' },
    format: { type: 'json', subject_token_field_name: 'access_token' },
    ...extra,
  });
  const withSource = (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    credentialConfiguration('unused', { credential_source: source, ...extra });

  it("Azure's instance metadata service hands out the token; it is asked again at each exchange", async () => {
    const h = harness();
    const first = await workloadToken();
    metadata.setTokenValue(first);
    const asked = metadata.tokenRequests.length;
    const before = peer.exchanges;
    const auth = await connect(h, configuration(withSource(azureSource())), { fakeClock: true });
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      expect(peer.apiCalls.at(-1)).toMatch(new RegExp(`workloadIdentityPools/connectors${POOL_SUBJECT}$`));
      const request = metadata.tokenRequests.at(-1)!;
      expect(metadata.tokenRequests.length - asked).toBe(1);
      expect([request.status, request.headers.metadata, request.query.resource]).toEqual([
        200,
        'True',
        'api://connector-api',
      ]);
      expect(peer.seen).toContain(first);

      // Past the federated token's hour: a new exchange with the token IMDS hands out now.
      const second = await workloadToken({ lifetimeSeconds: 7200 });
      metadata.setTokenValue(second);
      h.clock.advance(3_601_000);
      expect((await auth.source.fetch('health')).status).toBe(200);
      expect([metadata.tokenRequests.length - asked, peer.exchanges - before]).toEqual([2, 2]);
      expect(peer.seen).toContain(second);
      expectNoLeak(h.lines, [first, second, ...peer.seen]);
    } finally {
      await auth.close();
      metadata.setTokenValue(undefined);
    }
  });

  it('a token service with a credential of its own: the header is sent and never shown; JSON field or text', async () => {
    for (const source of [
      {
        url: `${tokenServiceUrl}/token`,
        headers: { Authorization: `Bearer ${REQUEST_TOKEN}` },
        format: { type: 'json', subject_token_field_name: 'value' },
      },
      { url: `${tokenServiceUrl}/token.txt`, headers: { Authorization: `Bearer ${REQUEST_TOKEN}` } },
    ]) {
      const h = harness();
      served = await workloadToken();
      const { probe } = await probeWith(h, configuration(withSource(source)));
      expect(probe.outcome).toBe('HTTP 200');
      expect(tokenServiceRequests.at(-1)).toEqual({
        path: new URL(source.url).pathname,
        authorization: `Bearer ${REQUEST_TOKEN}`,
      });
      expect(peer.seen).toContain(served);
      // Registered with the configuration's other secrets, though the configuration itself is not one.
      expect(h.registry.redact(`sent ${REQUEST_TOKEN}`)).not.toContain(REQUEST_TOKEN);
      expectNoLeak(h.lines, [REQUEST_TOKEN, served]);
    }
  });

  it("the source's refusal is exit 3 naming gcp_credential_configuration, in its own words; not retried", async () => {
    const h = harness();
    const asked = metadata.tokenRequests.length;
    const error = await rejection(probeWith(h, configuration(withSource(azureSource({ headers: {} })))));
    expect([error.exitCode, error.key, error.code]).toEqual([
      3,
      'gcp_credential_configuration',
      'oauth_invalid_request',
    ]);
    expect(error.message).toContain(
      `GET ${metadata.url}/metadata/identity/oauth2/token refused the token request: invalid_request (Required metadata header not specified)`,
    );
    expect(metadata.tokenRequests.length - asked).toBe(1);

    const refused = await rejection(
      probeWith(
        h,
        configuration(
          withSource({ url: `${tokenServiceUrl}/token.txt`, headers: { Authorization: 'Bearer wrong-request-token' } }),
        ),
      ),
    );
    expect([refused.exitCode, refused.key, refused.code]).toEqual([3, 'gcp_credential_configuration', 'http_401']);
    expectNoLeak([error.message, refused.message, ...h.lines], ['wrong-request-token']);
  });

  it('a busy source is retried; one that never answers is exit 4 naming gcp_credential_configuration, with the hint', async () => {
    const h = harness();
    metadata.setTokenValue(await workloadToken());
    metadata.failNext(503, 2);
    const asked = metadata.tokenRequests.length;
    try {
      const { probe } = await probeWith(h, configuration(withSource(azureSource())));
      expect(probe.outcome).toBe('HTTP 200');
      expect(metadata.tokenRequests.slice(asked).map((r) => r.status)).toEqual([503, 503, 200]);
    } finally {
      metadata.setTokenValue(undefined);
    }
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const error = await rejection(
      probeWith(
        harness(),
        configuration(withSource({ url: `http://127.0.0.1:${closed}/token` }), { timeout_seconds: '3' }),
      ),
    );
    expect([error.exitCode, error.key]).toEqual([4, 'gcp_credential_configuration']);
    expect(error.hint).toContain('credential_source.url');
  });

  it('an answer without the named field: exit 2 naming gcp_credential_configuration, before any exchange', async () => {
    const before = peer.exchanges;
    served = await workloadToken();
    const source = {
      url: `${tokenServiceUrl}/token`,
      headers: { Authorization: `Bearer ${REQUEST_TOKEN}` },
      format: { type: 'json', subject_token_field_name: 'id_token' },
    };
    const error = await rejection(probeWith(harness(), configuration(withSource(source))));
    expect([error.exitCode, error.key, error.code]).toEqual([
      2,
      'gcp_credential_configuration',
      'subject_token_field_missing',
    ]);
    expect(error.message).toContain(`GET ${tokenServiceUrl}/token answered HTTP 200 without a "id_token" string`);
    expect(peer.exchanges).toBe(before);
  });
});
