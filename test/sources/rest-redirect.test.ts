import { afterAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { SourceUnreachableError } from '../../src/errors/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { leaveOriginSafely } from '../../src/sources/rest/redirect-policy.js';
import { start, type FaultyApi } from '../peers/faulty-api.js';

/**
 * A redirect off base_url's origin carries no credential the server copied into its Location:
 * query parameters that hold one are dropped (the rest of the query kept as written), and one
 * anywhere else in the URL refuses the redirect, naming the key.
 */

const KEY = 'qk-Path+Or/Query=42';
const peers: FaultyApi[] = [];
afterAll(() => Promise.all(peers.map((peer) => peer.stop())));

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
