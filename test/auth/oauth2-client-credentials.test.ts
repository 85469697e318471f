import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Failure } from '../helpers/rejection.js';
import { until } from '../helpers/source-session.js';
import { closedPort } from '../peers/http-api.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { bearerOf, connect, expectNoLeak, harness, probeWith, rejection, request } from './support.js';

/**
 * oauth2_client_credentials against oidc-provider: the three client authentications, the errors a
 * token endpoint gives, the retries it needs, and the token cache under concurrency and time.
 */

let peer: OidcPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer.stop();
});
afterEach(() => {
  peer.resetCounts();
  peer.failAllTokenRequests(undefined);
  peer.setAccessTokenTtl(300);
  peer.omitExpiresIn(false);
  peer.setAccessTokenFormat('jwt');
});

const basic = (extra: Record<string, string> = {}) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: peer.clients.basic.id,
  client_secret: peer.clients.basic.secret,
  scope: 'api:read',
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

/** Every secret the run could have shown: the client secrets, and every token and assertion the peer saw. */
const allSecrets = () => [
  peer.clients.basic.secret,
  peer.clients.post.secret,
  peer.clients.refresh.secret,
  ...peer.seen.accessTokens,
  ...peer.seen.assertions,
];

describe('oauth2_client_credentials against oidc-provider', () => {
  it('client_secret_basic: the token is acquired as part of the probe, then the API answers 200', async () => {
    const h = harness();
    const { probe, items } = await probeWith(h, basic());
    expect(probe.outcome).toBe('HTTP 200');
    expect(probe.target).toBe(`GET ${peer.apiUrl}/health`);
    expect(items.items).toHaveLength(2);
    // One token served the probe and the fetch.
    expect(peer.tokenRequests('client_credentials')).toBe(1);
    expect(peer.resourceRequests.slice(-2).map((r) => r.status)).toEqual([200, 200]);
    expectNoLeak(h.lines, allSecrets());
  });

  it('client_secret_post', async () => {
    const h = harness();
    const { probe } = await probeWith(
      h,
      basic({
        client_id: peer.clients.post.id,
        client_secret: peer.clients.post.secret,
        token_endpoint_auth: 'client_secret_post',
      }),
    );
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer.tokenRequests('client_credentials')).toBe(1);
    expectNoLeak(h.lines, allSecrets());
  });

  it('client_secret_jwt: an assertion signed with the secret (HS256); the secret itself never travels', async () => {
    const h = harness();
    const { id, secret } = peer.clients.secretJwt;
    const { probe } = await probeWith(
      h,
      basic({ client_id: id, client_secret: secret, token_endpoint_auth: 'client_secret_jwt' }),
    );
    expect(probe.outcome).toBe('HTTP 200');
    const assertion = peer.seen.assertions.at(-1)!;
    const [header, claims] = assertion
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(claims).toMatchObject({ iss: id, sub: id, aud: peer.tokenUrl });
    expect(assertion).not.toContain(secret);
    expectNoLeak(h.lines, [...allSecrets(), secret]);

    const wrong = await rejection(
      probeWith(
        harness(),
        basic({ client_id: id, client_secret: `${secret}-wrong`, token_endpoint_auth: 'client_secret_jwt' }),
      ),
    );
    expect([wrong.exitCode, wrong.key, wrong.code]).toEqual([3, 'client_secret', 'oauth_invalid_client']);
  });

  it('private_key_jwt: a signed client assertion (ES256, kid) replaces the secret', async () => {
    const h = harness();
    const configuration = basic({
      client_id: peer.clients.privateKeyJwt.id,
      client_secret: '',
      token_endpoint_auth: 'private_key_jwt',
      // As it arrives pasted into one JSON string line: "\n" escapes.
      client_assertion_key: peer.clients.privateKeyJwt.keyPem.replace(/\n/g, '\\n'),
      client_assertion_key_id: peer.clients.privateKeyJwt.keyId,
    });
    const { probe } = await probeWith(h, configuration);
    expect(probe.outcome).toBe('HTTP 200');
    const assertion = peer.seen.assertions.at(-1)!;
    const header = JSON.parse(Buffer.from(assertion.split('.')[0]!, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(assertion.split('.')[1]!, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', kid: peer.clients.privateKeyJwt.keyId });
    expect(claims).toMatchObject({
      iss: peer.clients.privateKeyJwt.id,
      sub: peer.clients.privateKeyJwt.id,
      aud: peer.tokenUrl,
    });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(60);
    const keyLines = peer.clients.privateKeyJwt.keyPem
      .split('\n')
      .filter((l) => l.length > 20 && !l.startsWith('-----'));
    expectNoLeak(h.lines, [...allSecrets(), ...keyLines]);
  });

  it('a wrong secret: AuthenticationError (exit 3) naming client_secret and invalid_client, after one request, no leak', async () => {
    const h = harness();
    const wrong = `${peer.clients.basic.secret}-wrong`;
    const error = await rejection(probeWith(h, basic({ client_secret: wrong })));
    expect(error.name).toBe('AuthenticationError');
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('client_secret');
    expect(error.code).toBe('oauth_invalid_client');
    expect(error.message).toContain('invalid_client');
    // The key to check is said once, by the hint (and `key`); the message says what happened.
    expect(error.hint).toContain("'client_secret'");
    expect(error.message).not.toContain("'client_secret'");
    expect(error.message).toContain(`POST ${peer.tokenUrl}`);
    expect(error.message).toContain(`client '${peer.clients.basic.id}'`);
    // Not retried: asking again with a wrong secret only locks accounts sooner.
    expect(peer.tokenRequests('client_credentials')).toBe(1);
    // The probe stopped at the token: the API was never called with anything.
    expectNoLeak(
      [error.message, String(error.hint), ...h.lines],
      [wrong, `${peer.clients.basic.id}:${wrong}`, ...allSecrets()],
    );
  });

  it('a client the server does not let use this grant: exit 3 naming client_id', async () => {
    const h = harness();
    const error = await rejection(
      probeWith(h, basic({ client_id: peer.clients.refresh.id, client_secret: peer.clients.refresh.secret })),
    );
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('client_id');
    expect(error.message).toMatch(/unauthorized_client|invalid_request/);
    expectNoLeak([error.message, ...h.lines], allSecrets());
  });

  it('an audience the server does not know: exit 3 naming audience and invalid_target', async () => {
    const h = harness();
    const error = await rejection(probeWith(h, basic({ audience: 'https://unknown.example/' })));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('audience');
    expect(error.message).toContain('invalid_target');
    expectNoLeak([error.message, ...h.lines], allSecrets());
  });

  it('token_url over plain http to a non-loopback host: ConfigurationError naming token_url, nothing sent', async () => {
    const h = harness();
    const error = await rejection(connect(h, basic({ token_url: 'http://auth.example.com/oauth/token' })));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('token_url');
    expect(error.message).toContain('https://');
    expect(peer.tokenRequests()).toBe(0);
  });

  it('missing client_secret: ConfigurationError naming it', async () => {
    const h = harness();
    const { client_secret: _, ...configuration } = basic();
    const error = await rejection(connect(h, configuration));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('client_secret');
  });

  it('no expires_in, JWT access token: the lifetime comes from exp − iat', async () => {
    const h = harness();
    peer.setAccessTokenTtl(600);
    peer.omitExpiresIn(true);
    const a = await connect(h, basic(), { fakeClock: true });
    try {
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      h.clock.advance(500_000); // past the 300 s default, short of 600 − 5% = 570 s
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests()).toBe(1);
      h.clock.advance(95_000); // 595 s: past the hard margin (600 − 30 s / 3): callers wait for a new token
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests()).toBe(2);
      expect(h.lines.some((l) => l.includes('no expires_in') && l.includes("access token's exp"))).toBe(true);
    } finally {
      await a.close();
    }
  });

  it('no expires_in, opaque token: a 300 s default with a warning, not an error', async () => {
    const h = harness();
    peer.omitExpiresIn(true);
    peer.setAccessTokenFormat('opaque');
    const a = await connect(h, basic(), { fakeClock: true });
    try {
      const probe = await a.probe();
      expect(probe.outcome).toBe('HTTP 200');
      const warning = h.lines
        .map((l) => JSON.parse(l))
        .find((l) => l.level === 'WARNING' && l.message.includes('no expires_in'));
      expect(warning?.message).toContain('assuming 300s');
      h.clock.advance(296_000);
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests()).toBe(2);
    } finally {
      await a.close();
    }
    expectNoLeak(h.lines, allSecrets());
  });
});

describe('the token cache against oidc-provider', () => {
  it('1,000 concurrent authorize() calls at expiry make exactly 1 token request', async () => {
    const h = harness();
    const a = await connect(h, basic(), { fakeClock: true });
    try {
      await a.credential.prepare!();
      expect(peer.tokenRequests()).toBe(1);
      const first = peer.seen.accessTokens.at(-1);
      h.clock.advance(301_000); // past expiry: every caller must wait for a new token
      const requests = Array.from({ length: 1000 }, () => request(peer.apiUrl));
      await Promise.all(requests.map((r) => a.credential.httpRequest!.authorize(r)));
      expect(peer.tokenRequests()).toBe(2);
      const tokens = new Set(requests.map(bearerOf));
      expect(tokens.size).toBe(1);
      expect([...tokens][0]).not.toBe(first);
      expect([...tokens][0]).toBe(peer.seen.accessTokens.at(-1));
    } finally {
      await a.close();
    }
    expectNoLeak(h.lines, allSecrets());
  });

  it('1,000 concurrent callers in the refresh window: 1 background request, every caller served at once', async () => {
    const h = harness();
    const a = await connect(h, basic(), { fakeClock: true });
    try {
      await a.credential.prepare!();
      const first = peer.seen.accessTokens.at(-1);
      h.clock.advance(290_000); // inside the last 15 s (5%): renewal starts, the old token is still good
      const requests = Array.from({ length: 1000 }, () => request(peer.apiUrl));
      await Promise.all(requests.map((r) => a.credential.httpRequest!.authorize(r)));
      expect(new Set(requests.map(bearerOf))).toEqual(new Set([first]));
      // The background fetch lands shortly; from then on the new token is served.
      let later = request(peer.apiUrl);
      await until(async () => {
        later = request(peer.apiUrl);
        await a.credential.httpRequest!.authorize(later);
        return bearerOf(later) !== first;
      });
      expect(bearerOf(later)).toBe(peer.seen.accessTokens.at(-1));
      expect(peer.tokenRequests()).toBe(2);
    } finally {
      await a.close();
    }
  });

  it('a one-hour sync on a fake clock with 5-minute tokens makes 12 ± 1 token requests', async () => {
    const h = harness();
    const a = await connect(h, basic(), { fakeClock: true });
    const start = h.clock.now();
    try {
      // A request every 2 s of simulated time, for an hour.
      for (let t = 0; t <= 3600_000; t += 2000) {
        h.clock.set(start + t);
        await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      }
      const made = peer.tokenRequests('client_credentials');
      expect(made).toBeGreaterThanOrEqual(11);
      expect(made).toBeLessThanOrEqual(13);
    } finally {
      await a.close();
    }
    expectNoLeak(h.lines, allSecrets());
  });

  it('a 401 from the source: one forced refresh, one retry, success', async () => {
    const h = harness();
    const a = await connect(h, basic(), { fakeClock: true });
    try {
      await a.probe();
      expect(peer.tokenRequests()).toBe(1);
      peer.rejectNextResourceRequests(1);
      // The cache ignores a 401 for a token fetched moments ago (it would be for its predecessor): the clock moves past that.
      h.clock.advance(2100);
      const items = await a.source.json<{ items: unknown[] }>('items');
      expect(items.items).toHaveLength(2);
      expect(peer.tokenRequests()).toBe(2);
      expect(peer.resourceRequests.slice(-2).map((r) => r.status)).toEqual([401, 200]);
    } finally {
      await a.close();
    }
    expectNoLeak(h.lines, allSecrets());
  });

  // The waits are read from injected timers (the fake clock moves by each one), not from the wall
  // clock: what a retry waited is the behaviour; how long a loaded machine took is not.
  it('503, 503, 200 from the token endpoint: success after backoff, with the retries logged', async () => {
    const h = harness();
    peer.failNextTokenRequests({ status: 503 }, { status: 503 });
    const { sleeps, outcome } = await probeTimed(h, basic());
    expect(outcome).toBe('HTTP 200');
    expect(peer.tokenRequests()).toBe(3);
    // Two waits: 125–250 ms, then 250–500 ms.
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(125);
    expect(sleeps[0]).toBeLessThanOrEqual(250);
    expect(sleeps[1]).toBeGreaterThanOrEqual(250);
    expect(sleeps[1]).toBeLessThanOrEqual(500);
    const retries = h.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 'WARNING' && l.message.includes('retrying in'));
    expect(retries).toHaveLength(2);
    expect(retries[0].message).toContain('answered HTTP 503');
    expectNoLeak(h.lines, allSecrets());
  });

  it('Retry-After (seconds) is honoured', async () => {
    const h = harness();
    peer.failNextTokenRequests({ status: 429, retryAfter: '1' });
    expect((await probeTimed(h, basic())).sleeps).toEqual([1000]);
    expect(peer.tokenRequests()).toBe(2);
  });

  it('authenticate() takes injected timers: a 40 s Retry-After passes on the fake clock, not the wall clock', async () => {
    const h = harness();
    peer.failNextTokenRequests({ status: 429, retryAfter: '40' });
    const { sleeps, outcome } = await probeTimed(h, basic({ timeout_seconds: '60' }));
    expect(outcome).toBe('HTTP 200');
    expect(sleeps).toEqual([40_000]);
    expect(peer.tokenRequests()).toBe(2);
  });

  it('Retry-After as an HTTP date is honoured', async () => {
    const h = harness();
    peer.failNextTokenRequests({ status: 503, retryAfter: new Date(h.clock.now() + 2000).toUTCString() });
    const { sleeps } = await probeTimed(h, basic());
    // HTTP dates have whole seconds: the wait is 1–2 s.
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(900);
    expect(sleeps[0]).toBeLessThanOrEqual(2000);
    expect(peer.tokenRequests()).toBe(2);
  });

  it('a Retry-After beyond the budget: give up at once rather than wait past timeout_seconds', async () => {
    const h = harness();
    peer.failNextTokenRequests({ status: 503, retryAfter: '120' });
    const { sleeps, error } = await probeTimed(h, basic());
    expect(sleeps).toEqual([]);
    expect(error?.exitCode).toBe(4);
    expect(error?.message).toContain('retry after 120');
    expect(peer.tokenRequests()).toBe(1);
  });

  it('a persistent 503: SourceUnreachableError (exit 4) within the timeout_seconds bound', async () => {
    const h = harness();
    peer.failAllTokenRequests({ status: 503 });
    const { sleeps, error } = await probeTimed(h, basic({ timeout_seconds: '3' }));
    expect(error?.name).toBe('SourceUnreachableError');
    expect(error?.exitCode).toBe(4);
    expect(error?.key).toBe('token_url');
    expect(error?.message).toMatch(/answered HTTP 503 .*on \d attempts over [\d.]+s; no token/);
    expect(sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(3000);
    const attempts = peer.tokenRequests();
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(5);
    expectNoLeak([error!.message, ...h.lines], allSecrets());
  });

  it('a slow token endpoint: the attempt is cut at the budget, exit 4 naming timeout_seconds', async () => {
    const h = harness();
    // An answer the test's own timeout would never see: waiting for it would fail the test as a hang.
    peer.failAllTokenRequests({ status: 200, delayMs: 120_000 });
    const error = await rejection(probeWith(h, basic({ timeout_seconds: '1' })));
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('timeout_seconds');
  });

  it('a closed port: exit 4 naming token_url, within the bound', async () => {
    const h = harness();
    const port = await closedPort();
    const error = await rejection(
      probeWith(h, basic({ token_url: `http://127.0.0.1:${port}/token`, timeout_seconds: '2' })),
    );
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('token_url');
    expect(error.message).toContain('econnrefused');
  });
});

describe('rotation hygiene', () => {
  it('a client secret issued more than 90 days ago: a warning with its age and the rule', async () => {
    const h = harness();
    const issued = new Date(Date.now() - 120 * 86_400_000).toISOString().slice(0, 10);
    const a = await connect(h, basic({ credential_issued_at: issued }));
    await a.close();
    const warning = h.lines.map((l) => JSON.parse(l)).find((l) => l.level === 'WARNING');
    expect(warning?.message).toMatch(/oauth2_client_credentials credential is 1(19|20) days old/);
    expect(warning?.message).toContain('every 90 days');
  });

  it('one issued 60 days ago: no warning', async () => {
    const h = harness();
    const a = await connect(h, basic({ credential_issued_at: new Date(Date.now() - 60 * 86_400_000).toISOString() }));
    await a.close();
    expect(h.lines.filter((l) => l.includes('"WARNING"'))).toEqual([]);
  });
});

/** The probe with injected timers on the harness's fake clock: the waits it asked for, and how it ended. */
async function probeTimed(h: ReturnType<typeof harness>, configuration: Record<string, string>) {
  const sleeps: number[] = [];
  const timers = { sleep: async (ms: number) => void (sleeps.push(ms), h.clock.advance(ms)) };
  const a = await connect(h, configuration, { fakeClock: true, timers });
  try {
    return { sleeps, outcome: (await a.probe()).outcome, error: undefined };
  } catch (error) {
    return { sleeps, outcome: undefined, error: error as Failure };
  } finally {
    await a.close();
  }
}
