import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { authenticate } from '../../src/connector/index.js';
import { HttpClient } from '../../src/network/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

/**
 * What the token cache costs and saves, against the naive alternative measured in the same run:
 * fetching a token for every request, as a connector without a cache does.
 *
 * - token_cache_authorize_ns: one `authorize()` of an oauth2_client_credentials credential whose
 *   token is cached (steady state), sequentially, averaged.
 * - token_cache_naive_authorize_ns: one token request per authorize() to the same local token server.
 * - token_cache_naive_over_cached: how many times slower the naive way is.
 * - token_cache_requests_per_1000_concurrent, …_at_expiry, token_cache_naive_requests_per_1000_concurrent:
 *   requests the token server received for 1,000 callers at once (cold cache; cached token just
 *   expired on a fake clock; naive).
 * - token_cache_requests_per_hour_5min_tokens: a simulated hour (fake clock, a request every second) with
 *   5-minute tokens; a fixed 2-minute margin would make 20, the naive way 3,600.
 *
 * Run alone: `npx tsx bench/credentials/token-cache.ts` (prints JSON).
 */

const CACHED_CALLS = 200_000;
const NAIVE_CALLS = 300;

export async function run(): Promise<Record<string, number>> {
  const server = await tokenServer();
  let fake = Date.now();
  const registry = new SecretRegistry();
  const configuration = {
    auth_method: 'oauth2_client_credentials',
    token_url: `${server.url}/token`,
    client_id: 'bench-client',
    client_secret: 'bench-secret-value',
    base_url: server.url,
  };
  try {
    // Cold: 1,000 concurrent callers.
    const cold = await authenticate(configuration, { registry, now: () => fake });
    const coldBefore = server.count;
    await Promise.all(Array.from({ length: 1000 }, () => cold.credential.httpRequest!.authorize(request(server.url))));
    const concurrentCached = server.count - coldBefore;

    // Steady state.
    for (let i = 0; i < 10_000; i++) await cold.credential.httpRequest!.authorize(request(server.url));
    const req = request(server.url);
    let started = process.hrtime.bigint();
    for (let i = 0; i < CACHED_CALLS; i++) await cold.credential.httpRequest!.authorize(req);
    const cachedNs = Number(process.hrtime.bigint() - started) / CACHED_CALLS;

    // At expiry: every caller must wait, one request serves them all.
    fake += 3601_000;
    const expiryBefore = server.count;
    await Promise.all(Array.from({ length: 1000 }, () => cold.credential.httpRequest!.authorize(request(server.url))));
    const concurrentAtExpiry = server.count - expiryBefore;
    await cold.close();

    // Naive: a token request per authorize(), over the same kind of keep-alive client.
    const http = new HttpClient({ tls: { verify: true }, timeoutSeconds: 10 });
    const naive = async (r: ReturnType<typeof request>) => {
      const response = await http.send(
        new URL(`${server.url}/token`),
        {
          method: 'POST',
          headers: new Headers({
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from('bench-client:bench-secret-value').toString('base64')}`,
          }),
          body: 'grant_type=client_credentials',
        },
        { credential: 'naive', urlKey: 'token_url' },
      );
      const { access_token } = (await response.json()) as { access_token: string };
      r.headers.set('authorization', `Bearer ${access_token}`);
    };
    for (let i = 0; i < 50; i++) await naive(request(server.url));
    started = process.hrtime.bigint();
    for (let i = 0; i < NAIVE_CALLS; i++) await naive(req);
    const naiveNs = Number(process.hrtime.bigint() - started) / NAIVE_CALLS;
    const naiveBefore = server.count;
    await Promise.all(Array.from({ length: 1000 }, () => naive(request(server.url))));
    const concurrentNaive = server.count - naiveBefore;
    await http.close();

    // An hour of 5-minute tokens on a fake clock.
    const short = await tokenServer(300);
    let hourRequests: number;
    try {
      let t = Date.now();
      const hour = await authenticate(
        { ...configuration, token_url: `${short.url}/token` },
        { registry, now: () => t },
      );
      const begin = t;
      for (t = begin; t <= begin + 3600_000; t += 1000)
        await hour.credential.httpRequest!.authorize(request(short.url));
      await hour.close();
      hourRequests = short.count;
    } finally {
      await short.stop();
    }

    return {
      token_cache_authorize_ns: Math.round(cachedNs),
      token_cache_naive_authorize_ns: Math.round(naiveNs),
      token_cache_naive_over_cached: Math.round(naiveNs / cachedNs),
      token_cache_requests_per_1000_concurrent: concurrentCached,
      token_cache_naive_requests_per_1000_concurrent: concurrentNaive,
      token_cache_requests_per_1000_concurrent_at_expiry: concurrentAtExpiry,
      token_cache_requests_per_hour_5min_tokens: hourRequests,
    };
  } finally {
    await server.stop();
  }
}

function request(url: string) {
  return { method: 'GET', url: new URL(url), headers: new Headers() };
}

/** A minimal token endpoint: every POST gets a fresh token (an hour long unless told). */
async function tokenServer(expiresIn = 3600): Promise<{ url: string; readonly count: number; stop(): Promise<void> }> {
  let count = 0;
  let serial = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({
          access_token: `bench-token-${++serial}-${'x'.repeat(40)}`,
          token_type: 'Bearer',
          expires_in: expiresIn,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get count() {
      return count;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
