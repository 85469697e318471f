import { afterAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { SourceUnreachableError } from '../../src/errors/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { MAX_REDIRECTS, RedirectPolicy, leaveOriginSafely, type Hop } from '../../src/sources/rest/index.js';
import { start, type FaultyApi } from '../peers/faulty-api.js';

/**
 * The REST source's redirect policy, as a unit (where the credential goes, what a hop keeps), then
 * against a real server. A redirect off base_url's origin carries no credential the server copied into its Location:
 * query parameters that hold one are dropped (the rest of the query kept as written), and one
 * anywhere else in the URL refuses the redirect, naming the key.
 */

const KEY = 'qk-Path+Or/Query=42';
const peers: FaultyApi[] = [];
afterAll(() => Promise.all(peers.map((peer) => peer.stop())));

describe('RedirectPolicy', () => {
  const registry = new SecretRegistry();
  registry.register('api_key', KEY);
  const policy = new RedirectPolicy({
    baseUrl: new URL('https://api.example/v1/'),
    credential: 'api key',
    secrets: registry,
    log: { debug: () => undefined },
  });
  const first = new URL('https://api.example/v1/items');
  const post = (): Hop<string> => policy.start(first, 'POST', '{"a":1}');
  const answer = (status: number, location?: string) => ({
    status,
    headers: { get: (name: string) => (name === 'location' ? (location ?? null) : null) },
  });

  it("the credential goes to base_url's origin only, whatever the path or scheme", () => {
    expect(policy.carriesCredential(new URL('https://api.example/other'))).toBe(true);
    expect(policy.carriesCredential(new URL('http://api.example/v1/items'))).toBe(false);
    expect(policy.carriesCredential(new URL('https://api.example:8443/v1/items'))).toBe(false);
    expect(policy.carriesCredential(new URL('https://cdn.example/v1/items'))).toBe(false);
  });

  it('follows the five redirect statuses to an http(s) Location, resolved against the hop', () => {
    for (const status of [301, 302, 303, 307, 308])
      expect(policy.target(answer(status, '/v1/next'), post(), false)?.href).toBe('https://api.example/v1/next');
    expect(policy.target(answer(200, '/v1/next'), post(), false)).toBeUndefined();
    expect(policy.target(answer(304, '/v1/next'), post(), false)).toBeUndefined();
    expect(policy.target(answer(302), post(), false)).toBeUndefined();
    expect(policy.target(answer(302, 'ftp://files.example/x'), post(), false)).toBeUndefined();
    expect(policy.target(answer(302, '/v1/next'), post(), true)).toBeUndefined();
  });

  it('303, and 301/302 after a POST, go on as a GET without the body; 307 and 308 keep both', () => {
    const next = new URL('https://api.example/v1/next');
    for (const status of [301, 302, 303])
      expect(policy.follow(post(), status, next, first)).toEqual({
        url: next,
        method: 'GET',
        body: undefined,
        drop: { body: true, callerCredentials: false },
      });
    for (const status of [307, 308])
      expect(policy.follow(post(), status, next, first)).toMatchObject({ method: 'POST', body: '{"a":1}' });
    const head = policy.start(first, 'HEAD', undefined);
    expect(policy.follow(head, 303, next, first).method).toBe('HEAD');
    expect(policy.follow(policy.start(first, 'PUT', 'x'), 302, next, first)).toMatchObject({
      method: 'PUT',
      body: 'x',
    });
  });

  it("the caller's own credentials leave with the first change of origin, and stay gone on coming back", () => {
    const away = policy.follow(post(), 307, new URL('https://cdn.example/x'), first);
    expect(away.drop.callerCredentials).toBe(true);
    const back = policy.follow(away, 307, new URL('https://api.example/v1/items'), first);
    expect(back.drop.callerCredentials).toBe(true);
    const headers = policy.headers({ authorization: 'Bearer mine', cookie: 'c=1', 'content-type': 'text/plain' }, back);
    expect([...headers.keys()].sort()).toEqual(['accept', 'content-type']);
    const turned = policy.follow(post(), 303, new URL('https://api.example/v1/next'), first);
    expect([...policy.headers({ 'content-type': 'application/json', accept: 'text/csv' }, turned)]).toEqual([
      ['accept', 'text/csv'],
    ]);
  });

  it('a hop off the origin drops a query parameter that holds a secret', () => {
    const next = new URL(`https://cdn.example/x?api_key=${encodeURIComponent(KEY)}&page=2`);
    expect(policy.follow(post(), 307, next, first).url.href).toBe('https://cdn.example/x?page=2');
  });

  it(`stops after ${MAX_REDIRECTS} redirects with exit 4 naming base_url`, () => {
    expect(() => policy.checkLength(MAX_REDIRECTS - 1, post())).not.toThrow();
    const error = rejectionOf(() => policy.checkLength(MAX_REDIRECTS, post()));
    expect(error).toBeInstanceOf(SourceUnreachableError);
    expect(error).toMatchObject({ code: 'too_many_redirects', key: 'base_url', exitCode: 4 });
    expect(error.message).toBe('api key: POST https://api.example/v1/items redirected more than 20 times');
  });
});

function rejectionOf(act: () => void): SourceUnreachableError {
  try {
    act();
  } catch (error) {
    return error as SourceUnreachableError;
  }
  throw new Error('expected it to throw');
}

describe('leaveOriginSafely', () => {
  const registry = new SecretRegistry();
  registry.register('api_key', KEY);
  const from = {
    method: 'GET',
    url: new URL('https://api.example/items'),
    credential: 'api key in query parameter api_key',
  };
  const log = { debug: () => undefined };

  it('drops the parameters that hold a secret and keeps the others byte for byte', () => {
    const next = new URL(`https://cdn.example/items?X-Sig=a%2Fb+c&api_key=${encodeURIComponent(KEY)}&page=2`);
    expect(leaveOriginSafely(next, from, registry, log).href).toBe('https://cdn.example/items?X-Sig=a%2Fb+c&page=2');
  });

  it('leaves a URL without a secret exactly as it was', () => {
    const next = new URL('https://cdn.example/items?X-Sig=a%2Fb+c&page=2#top');
    expect(leaveOriginSafely(next, from, registry, log).href).toBe('https://cdn.example/items?X-Sig=a%2Fb+c&page=2');
  });

  it('refuses a redirect with the secret in its path, naming the key', () => {
    const next = new URL(`https://evil.example/keys/${encodeURIComponent(KEY)}/items`);
    expect(() => leaveOriginSafely(next, from, registry, log)).toThrow(SourceUnreachableError);
    expect(() => leaveOriginSafely(next, from, registry, log)).toThrow(
      "api key in query parameter api_key: GET https://api.example/items redirected to https://evil.example with the value of 'api_key' in the URL; not followed",
    );
  });
});

describe('the REST source', () => {
  it('a query-string key copied into a redirect path: refused with exit 4, the other host never asked', async () => {
    const other = await start({ auth: { kind: 'none' } });
    const peer = await start({
      auth: { kind: 'query', name: 'api_key', value: KEY },
      faults: { '/items': { kind: 'redirect', to: `${other.url}/k/${encodeURIComponent(KEY)}` } },
    });
    peers.push(other, peer);
    const auth = await authenticate({
      auth_method: 'api_key',
      api_key: KEY,
      api_key_location: 'query',
      api_key_query_param: 'api_key',
      base_url: peer.url,
      probe_path: 'health',
    });
    try {
      await auth.probe();
      const failure = await auth.source.json('items').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SourceUnreachableError);
      expect((failure as SourceUnreachableError).code).toBe('redirect_carries_credential');
      expect((failure as SourceUnreachableError).key).toBe('api_key');
      expect(other.requests).toEqual([]);
    } finally {
      await auth.close();
    }
  });
});
