import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../peers/http-api.js';
import { startSessionApi, type SessionApiPeer } from '../peers/session-api.js';
import { connect, expectNoLeak, harness, rejection } from './support.js';

/**
 * session_token against a real login endpoint and API (test/peers/session-api.ts): the token from
 * the body, a header or a cookie, sent with the prefix the API wants; one login for any number of
 * concurrent requests, a new one before expiry and once after a 401; a wrong password names the
 * key (exit 3), a login endpoint nobody answers is exit 4; the token never printed.
 */

const USER = 'etl-reader';
const PASSWORD = 'pw_S3ss/ion+Secret&x';
let peer: SessionApiPeer;

beforeAll(async () => {
  peer = await startSessionApi({ username: USER, password: PASSWORD, expiresIn: 600 });
});
afterAll(async () => {
  await peer?.stop();
});

const configuration = (over: Record<string, string> = {}, api = peer) => ({
  auth_method: 'session_token',
  login_url: api.loginUrl,
  username: USER,
  password: PASSWORD,
  session_header_prefix: 'Token',
  base_url: api.url,
  probe_path: 'health',
  ...over,
});

describe('session_token', () => {
  it('logs in during the probe and sends `Authorization: Token <t>`; one login serves every request', async () => {
    const h = harness();
    const before = peer.logins();
    const a = await connect(h, configuration());
    try {
      expect((await a.probe()).outcome).toBe('HTTP 200');
      const pages = await Promise.all(Array.from({ length: 8 }, () => a.source.json<{ items: unknown[] }>('items')));
      expect(pages.every((page) => page.items.length === 10)).toBe(true);
    } finally {
      await a.close();
    }
    expect(peer.logins() - before).toBe(1);
    expectNoLeak(h.lines, [PASSWORD, ...peer.tokens]);
  });

  it('single flight: concurrent first requests wait for one login', async () => {
    const h = harness();
    const before = peer.logins();
    peer.loginDelayMs = 100;
    const a = await connect(h, configuration());
    try {
      await Promise.all(Array.from({ length: 6 }, () => a.source.json('health')));
    } finally {
      peer.loginDelayMs = 0;
      await a.close();
    }
    expect(peer.logins() - before).toBe(1);
  });

  it('a 401 from the API (the session ended): one new login, and the request succeeds', async () => {
    const h = harness();
    const a = await connect(h, configuration());
    try {
      await a.probe();
      const before = peer.logins();
      peer.revokeAll();
      expect(await a.source.json('health')).toEqual({ ok: true });
      expect(peer.logins() - before).toBe(1);
    } finally {
      await a.close();
    }
  });

  it('logs in again before the session expires (expires_in from the answer)', async () => {
    const h = harness();
    const a = await connect(h, configuration(), { now: h.clock.now });
    try {
      await a.probe();
      const before = peer.logins();
      h.clock.advance(590_000);
      await a.source.json('health');
      expect(peer.logins() - before).toBe(1);
    } finally {
      await a.close();
    }
  });

  it('the API refuses the token (the wrong prefix): one new login, then exit 3 naming password', async () => {
    const before = peer.logins();
    const a = await connect(harness(), configuration({ session_header_prefix: 'Bearer' }));
    const failure = await rejection(a.probe());
    await a.close();
    expect(failure.exitCode).toBe(3);
    expect(failure.key).toBe('password');
    expect(peer.logins() - before).toBe(2);
  });

  it('a wrong password: exit 3 naming password, the password not in the message', async () => {
    const h = harness();
    const a = await connect(h, configuration({ password: 'not-the-Passw0rd' }));
    const failure = await rejection(a.probe());
    await a.close();
    expect(failure.exitCode).toBe(3);
    expect(failure.key).toBe('password');
    expect(failure.message).toContain('the login at');
    expect(failure.message).not.toContain('not-the-Passw0rd');
  });

  it('a login endpoint nobody answers: exit 4 naming login_url', async () => {
    const h = harness();
    const port = await closedPort();
    const a = await connect(h, configuration({ login_url: `http://127.0.0.1:${port}/login` }));
    const failure = await rejection(a.probe());
    await a.close();
    expect(failure.exitCode).toBe(4);
    expect(failure.message).toContain(`127.0.0.1:${port}`);
  });

  it('a login_url over plain http to another host is refused before anything is sent (exit 2)', async () => {
    const failure = await rejection(connect(harness(), configuration({ login_url: 'http://example.com/login' })));
    expect(failure.exitCode).toBe(2);
    expect(failure.key).toBe('login_url');
  });

  it('the token in a header, a form body, and X-Session with no prefix', async () => {
    const api = await startSessionApi({
      username: USER,
      password: PASSWORD,
      tokenIn: 'header',
      header: 'X-Session',
      prefix: '',
    });
    try {
      const h = harness();
      const over = {
        login_body_format: 'form',
        session_token_location: 'header:X-Session-Token',
        session_header: 'X-Session',
        session_header_prefix: '',
      };
      const a = await connect(h, configuration(over, api));
      try {
        expect((await a.probe()).outcome).toBe('HTTP 200');
      } finally {
        await a.close();
      }
      expect(api.logins()).toBe(1);
      expectNoLeak(h.lines, api.tokens);
    } finally {
      await api.stop();
    }
  });

  it('the token in a cookie, sent back as `Cookie: sid=<t>`', async () => {
    const api = await startSessionApi({
      username: USER,
      password: PASSWORD,
      tokenIn: 'cookie',
      header: 'Cookie',
      prefix: 'sid=',
    });
    try {
      const over = { session_token_location: 'cookie:sid', session_header: 'Cookie' };
      const a = await connect(harness(), configuration(over, api));
      try {
        expect((await a.probe()).outcome).toBe('HTTP 200');
      } finally {
        await a.close();
      }
    } finally {
      await api.stop();
    }
  });

  it('an answer without the token where it was looked for names session_token_location', async () => {
    const a = await connect(harness(), configuration({ session_token_location: 'body:data.session' }));
    const failure = await rejection(a.probe());
    await a.close();
    expect(failure.key).toBe('session_token_location');
    expect(failure.exitCode).toBe(4);
  });
});
