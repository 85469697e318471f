import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenEndpoint, tokenLifetime, type TokenResponse } from '../../src/auth/index.js';
import { retryAfterMs } from '../../src/network/index.js';
import { HttpClient } from '../../src/network/index.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak, fakeClock, harness, rejection } from './support.js';

/** The token endpoint's parsing and retry rules; the retries run on injected timers and a fake clock. */

let peer: OidcPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer.stop();
});

describe('Retry-After', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads delay-seconds and HTTP dates; ignores what it cannot read', () => {
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-4', now)).toBeUndefined();
  });
});

describe('token lifetime', () => {
  const token = (accessToken: string, expiresInSeconds?: number): TokenResponse => ({
    accessToken,
    tokenType: 'Bearer',
    expiresInSeconds,
    refreshToken: undefined,
    scope: undefined,
  });
  const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

  it('expires_in first; then the JWT exp − iat (server clock only); then exp − now; then 300 s with a warning', () => {
    const h = harness();
    const now = 1_000_000_000_000;
    expect(tokenLifetime(token('opaque-token', 3599), now, h.log, 'x')).toEqual({
      seconds: 3599,
      source: 'expires_in',
    });
    // A server clock an hour ahead of ours changes nothing: exp − iat is its own difference.
    const ahead = now / 1000 + 3600;
    expect(tokenLifetime(token(jwt({ iat: ahead, exp: ahead + 900 })), now, h.log, 'x')).toEqual({
      seconds: 900,
      source: 'jwt_exp',
    });
    expect(tokenLifetime(token(jwt({ exp: now / 1000 + 120 })), now, h.log, 'x')).toEqual({
      seconds: 120,
      source: 'jwt_exp',
    });
    expect(h.lines.filter((l) => l.includes('WARNING'))).toEqual([]);
    expect(tokenLifetime(token('opaque-token'), now, h.log, 'x')).toEqual({ seconds: 300, source: 'default' });
    expect(tokenLifetime(token(jwt({ sub: 'no exp' })), now, h.log, 'x').source).toBe('default');
    expect(h.lines.filter((l) => l.includes('WARNING') && l.includes('assuming 300s'))).toHaveLength(2);
  });
});

describe('TokenEndpoint retries on injected timers', () => {
  function endpoint(budgetMs: number) {
    const h = harness();
    const clock = fakeClock(Date.parse('2026-03-01T12:00:00Z'));
    const sleeps: number[] = [];
    const e = new TokenEndpoint({
      url: new URL(peer.tokenUrl),
      urlKey: 'token_url',
      credential: 'test client',
      errorKeys: {
        invalid_client: 'client_secret',
        invalid_grant: 'client_secret',
        unauthorized_client: 'client_id',
        other: 'client_id',
      },
      http: new HttpClient({ tls: { verify: true }, timeoutSeconds: 5 }),
      log: h.log,
      secrets: h.registry,
      now: clock.now,
      retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 16_000, budgetMs },
      // The wait passes on the fake clock only: a minute of backoff in a few milliseconds.
      timers: { sleep: async (ms) => void (sleeps.push(ms), clock.advance(ms)) },
      random: () => 1,
    });
    const basic = `Basic ${Buffer.from(`${peer.clients.basic.id}:${peer.clients.basic.secret}`).toString('base64')}`;
    const request = () =>
      e.request('client_credentials', () => ({
        body: new URLSearchParams(),
        headers: new Headers({ authorization: basic }),
      }));
    return { e, h, sleeps, request };
  }

  it('exponential backoff 1, 2, 4, 8 s, then gives up after 5 attempts', async () => {
    peer.resetCounts();
    peer.failAllTokenRequests({ status: 502 });
    const { e, sleeps, request } = endpoint(60_000);
    try {
      const error = await rejection(request());
      expect(error.exitCode).toBe(4);
      expect(error.message).toContain('on 5 attempts over 15s');
      expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
      expect(peer.tokenRequests()).toBe(5);
    } finally {
      peer.failAllTokenRequests(undefined);
      await e.close();
    }
  });

  it('the budget stops the retries before the attempts run out', async () => {
    peer.resetCounts();
    peer.failAllTokenRequests({ status: 503 });
    const { e, sleeps, request } = endpoint(5_000);
    try {
      const error = await rejection(request());
      expect(error.exitCode).toBe(4);
      // 1 s + 2 s fit in 5 s; the next 4 s would not.
      expect(sleeps).toEqual([1000, 2000]);
      expect(peer.tokenRequests()).toBe(3);
    } finally {
      peer.failAllTokenRequests(undefined);
      await e.close();
    }
  });

  it('Retry-After replaces the backoff; jitter keeps the wait between half and all of the step', async () => {
    peer.resetCounts();
    peer.failNextTokenRequests({ status: 429, retryAfter: '7' }, { status: 503 });
    const { e, sleeps, request } = endpoint(60_000);
    try {
      const token = await request();
      expect(token.accessToken).toBe(peer.seen.accessTokens.at(-1));
      expect(token.expiresInSeconds).toBe(300);
      expect(sleeps).toEqual([7000, 2000]);
    } finally {
      await e.close();
    }
  });

  it('invalid_client is never retried, and the description is kept (one line, redacted)', async () => {
    peer.resetCounts();
    const { e, h, sleeps } = endpoint(60_000);
    try {
      const bad = `Basic ${Buffer.from(`${peer.clients.basic.id}:wrong-secret-value`).toString('base64')}`;
      h.registry.register('client_secret', 'wrong-secret-value');
      const error = await rejection(
        e.request('client_credentials', () => ({
          body: new URLSearchParams(),
          headers: new Headers({ authorization: bad }),
        })),
      );
      expect(error.exitCode).toBe(3);
      expect(error.message).toContain('invalid_client (client authentication failed)');
      expect(sleeps).toEqual([]);
      expect(peer.tokenRequests()).toBe(1);
      expectNoLeak([error.message, ...h.lines], ['wrong-secret-value']);
    } finally {
      await e.close();
    }
  });

  it('a bare 401 (a Basic filter in front of the endpoint) is the client authentication refused: it names the secret, not client_id', async () => {
    peer.failNextTokenRequests({ status: 401, text: '', headers: { 'www-authenticate': 'Basic realm="token"' } });
    const { e, request, sleeps } = endpoint(60_000);
    try {
      const error = await rejection(request());
      expect([error.exitCode, error.code, error.key]).toEqual([3, 'http_401', 'client_secret']);
      expect(error.hint).toContain('did not accept the client authentication');
      expect(sleeps).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('an error name that is a property of every object ("constructor") is not a key of ours', async () => {
    peer.failNextTokenRequests({ status: 400, body: { error: 'constructor' } });
    const { e, request } = endpoint(60_000);
    try {
      const error = await rejection(request());
      expect([error.code, error.key]).toEqual(['oauth_constructor', 'client_id']);
      expect(error.hint).toBe("check 'client_id'");
    } finally {
      await e.close();
    }
  });

  it('a 200 that is not a token response: exit 4 naming token_url, the body not quoted', async () => {
    peer.failNextTokenRequests({ status: 200, body: { hello: 'world-and-a-secret' } });
    const { e, request } = endpoint(60_000);
    try {
      const error = await rejection(request());
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('token_response_malformed');
      expect(error.key).toBe('token_url');
      expect(error.message).not.toContain('world-and-a-secret');
    } finally {
      await e.close();
    }
  });
});
