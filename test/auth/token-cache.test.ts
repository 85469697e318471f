import { describe, expect, it } from 'vitest';
import { TokenCache, hardMargin, refreshMargin, type IssuedToken } from '../../src/auth/index.js';
import { ConfigurationError, SourceUnreachableError } from '../../src/errors/index.js';
import { fakeClock, harness } from './support.js';

/**
 * The cache's decisions on a fake clock: when to fetch, how many fetches, what callers get meanwhile.
 * The fetch here is a plain function that hands out numbered tokens (the peer-backed tests in
 * oauth2-client-credentials.test.ts count real token requests).
 */

const MINUTE = 60_000;

function source(lifetimeMs = 5 * MINUTE) {
  let n = 0;
  const pending: { resolve: (t: IssuedToken) => void; reject: (e: unknown) => void }[] = [];
  let manual = false;
  const fetch = (): Promise<IssuedToken> => {
    n++;
    if (!manual) return Promise.resolve({ value: `token-${n}`, lifetimeMs });
    return new Promise((resolve, reject) => pending.push({ resolve, reject }));
  };
  return {
    fetch,
    get count() {
      return n;
    },
    /** From now on, fetches wait until settled by hand. */
    hold() {
      manual = true;
    },
    release(value = `token-${n}`) {
      pending.shift()!.resolve({ value, lifetimeMs });
    },
    fail(error: unknown) {
      pending.shift()!.reject(error);
    },
  };
}

function cache(s: ReturnType<typeof source>, clock = fakeClock(0), isFatal?: (error: unknown) => boolean) {
  const h = harness();
  return {
    cache: new TokenCache({
      fetch: s.fetch,
      now: clock.now,
      log: h.log,
      description: 'test credential',
      ...(isFatal ? { isFatal } : {}),
    }),
    clock,
    lines: h.lines,
  };
}

describe('refresh margins', () => {
  it('1/20 of the lifetime, at most 5 minutes; callers wait only in the last third of it', () => {
    expect(refreshMargin(5 * MINUTE)).toBe(15_000);
    expect(refreshMargin(60 * MINUTE)).toBe(3 * MINUTE);
    expect(refreshMargin(100 * MINUTE)).toBe(5 * MINUTE);
    expect(refreshMargin(24 * 60 * MINUTE)).toBe(5 * MINUTE);
    expect(refreshMargin(30_000)).toBe(1500);
    expect(hardMargin(5 * MINUTE)).toBe(5000);
    expect(hardMargin(24 * 60 * MINUTE)).toBe(100_000);
  });
});

describe('TokenCache', () => {
  it('fetches nothing until asked, then once for 1,000 concurrent cold callers', async () => {
    const s = source();
    s.hold();
    const { cache: c } = cache(s);
    expect(s.count).toBe(0);
    const callers = Array.from({ length: 1000 }, () => c.token());
    s.release('first');
    expect(new Set(await Promise.all(callers))).toEqual(new Set(['first']));
    expect(s.count).toBe(1);
  });

  it('serves the cached token until the refresh point, with no fetch', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    expect(await c.token()).toBe('token-1');
    clock.set(284_999);
    expect(await c.token()).toBe('token-1');
    expect(s.count).toBe(1);
  });

  it('in the refresh window: the current token is served at once while one background fetch runs', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    await c.token();
    s.hold();
    clock.set(286_000);
    const during = await Promise.all(Array.from({ length: 100 }, () => c.token()));
    expect(new Set(during)).toEqual(new Set(['token-1']));
    expect(s.count).toBe(2);
    s.release('token-2');
    await Promise.resolve();
    await Promise.resolve();
    expect(await c.token()).toBe('token-2');
    expect(s.count).toBe(2);
  });

  it('past the hard margin callers wait for the new token instead of sending one about to expire', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    await c.token();
    s.hold();
    clock.set(296_000); // 4 s left, the hard margin is 5 s
    const waiting = c.token();
    let settled = false;
    void waiting.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    s.release('token-2');
    expect(await waiting).toBe('token-2');
  });

  it('a failed background refresh keeps the valid token, waits before trying again, and throws only once the token is unusable', async () => {
    const s = source();
    const { cache: c, clock, lines } = cache(s);
    await c.token();
    s.hold();
    clock.set(286_000);
    expect(await c.token()).toBe('token-1');
    s.fail(new SourceUnreachableError('token endpoint down', { code: 'http_503' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(lines.some((l) => l.includes('renewing the access token failed (token endpoint down)'))).toBe(true);
    // Quiet for half the time left (9 s left → 4.5 s): no fetch storm.
    clock.set(287_000);
    expect(await c.token()).toBe('token-1');
    expect(s.count).toBe(2);
    clock.set(291_000);
    expect(await c.token()).toBe('token-1');
    expect(s.count).toBe(3);
    s.fail(new SourceUnreachableError('still down', { code: 'http_503' }));
    await new Promise((r) => setTimeout(r, 0));
    clock.set(296_000);
    const blocking = c.token();
    s.fail(new SourceUnreachableError('down for good', { code: 'http_503' }));
    await expect(blocking).rejects.toThrow('down for good');
  });

  it('an error the credential calls final is thrown to every later caller, no further fetch', async () => {
    const s = source();
    s.hold();
    const { cache: c } = cache(s, fakeClock(0), (error) => error instanceof ConfigurationError);
    const first = c.token();
    const fatal = new ConfigurationError('could not save the rotated refresh token', {
      code: 'refresh_token_not_saved',
    });
    s.fail(fatal);
    await expect(first).rejects.toBe(fatal);
    await expect(c.token()).rejects.toBe(fatal);
    expect(c.invalidate()).toBe(false);
    expect(s.count).toBe(1);
  });

  it('any other error is not final: a token file unreadable during a renewal keeps the current token, and the next renewal reads it again', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    await c.token();
    s.hold();
    clock.set(286_000);
    expect(await c.token()).toBe('token-1');
    s.fail(new ConfigurationError('cannot read the token file (ENOENT)', { code: 'web_identity_token_unreadable' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(await c.token()).toBe('token-1');
    // After the quiet time, a new renewal that succeeds.
    clock.set(291_000);
    expect(await c.token()).toBe('token-1');
    s.release('token-2');
    await new Promise((r) => setTimeout(r, 0));
    expect(await c.token()).toBe('token-2');
    expect(c.invalidate()).toBe(true);
  });

  it('a 401 while a renewal is in flight: the refused token is not served again, callers wait for the renewal', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    await c.token();
    s.hold();
    clock.set(286_000); // in the refresh window: a background renewal starts, token-1 still served
    expect(await c.token()).toBe('token-1');
    expect(c.invalidate()).toBe(true);
    const next = c.token();
    s.release('token-2');
    expect(await next).toBe('token-2');
    expect(s.count).toBe(2);
  });

  it('"moments ago" is counted from when the token arrived: a slow token endpoint does not make a new token look old', async () => {
    const clock = fakeClock(0);
    let n = 0;
    const slow = async (): Promise<IssuedToken> => {
      clock.advance(3000); // the endpoint took 3 s (retries, a slow server)
      return { value: `token-${++n}`, lifetimeMs: 5 * MINUTE };
    };
    const h = harness();
    const c = new TokenCache({ fetch: slow, now: clock.now, log: h.log, description: 'test credential' });
    expect(await c.token()).toBe('token-1');
    c.invalidate(); // a 401 meant for the previous token, arriving right after
    expect(await c.token()).toBe('token-1');
    expect(n).toBe(1);
  });

  it('invalidate(): drops a token in use for a while, keeps one fetched moments ago, joins a fetch in flight', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    await c.token();
    clock.set(1000);
    expect(c.invalidate()).toBe(true); // 1 s old: the 401 was for an older token; keep it
    expect(await c.token()).toBe('token-1');
    clock.set(10_000);
    expect(c.invalidate()).toBe(true);
    expect(await c.token()).toBe('token-2');
    // A burst of 401s for token-2 right after: one refresh.
    clock.set(20_000);
    for (let i = 0; i < 50; i++) c.invalidate();
    expect(await c.token()).toBe('token-3');
    expect(s.count).toBe(3);
  });

  it('invalidate(rejected): the refused token is dropped however new, a token that replaced it is kept', async () => {
    const s = source();
    const { cache: c, clock } = cache(s);
    const first = await c.token();
    clock.set(500); // revoked half a second after it was issued
    expect(c.invalidate(first)).toBe(true);
    const second = await c.token();
    expect(second).toBe('token-2');
    // More 401s for token-1 arriving late, a burst of them: token-2 stays, no fetch.
    for (let i = 0; i < 50; i++) expect(c.invalidate(first)).toBe(true);
    expect(await c.token()).toBe('token-2');
    expect(s.count).toBe(2);
  });

  it('close() waits for a fetch in flight (a rotated refresh token must be saved before the process ends)', async () => {
    const s = source();
    s.hold();
    const { cache: c } = cache(s);
    void c.token();
    let closed = false;
    const closing = c.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(closed).toBe(false);
    s.release();
    await closing;
    expect(closed).toBe(true);
  });
});
