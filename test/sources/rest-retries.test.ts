import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { start, type Failure, type FlakyApi } from '../peers/flaky-api.js';

/**
 * The REST source asks again after a failure that passes (408, 429, 500, 502, 503, 504, a reset
 * connection), as the partner SDK's guide expects of a connector: `Retry-After` followed, idempotent
 * methods only unless the connector says a request is safe to repeat, and a run that gives up says
 * how many tries it made. Against a real server that fails each way.
 */

const TOKEN = 'Retry-T0ken-88c1';
let peer: FlakyApi;
let lines: string[];

beforeAll(async () => {
  peer = await start(TOKEN);
});
afterAll(async () => {
  await peer?.stop();
});

async function connect(extra: Record<string, string> = {}) {
  const registry = new SecretRegistry();
  lines = [];
  const log = createLogger({ format: 'json', level: 'debug', registry, write: (l) => lines.push(l) });
  return authenticate(
    { auth_method: 'bearer', token: TOKEN, base_url: peer.url, probe_path: 'health', ...extra },
    { registry, log },
  );
}

const triesOn = (path: string) => peer.requests.filter((r) => r.path === path).length;

describe('transient failures of the REST source', () => {
  it.each<[string, Failure[]]>([
    ['503 with Retry-After: 1', [{ status: 503, retryAfter: '1' }]],
    ['429 with Retry-After: 0', [{ status: 429, retryAfter: '0' }]],
    ['408, 500 and 502, each with Retry-After: 0', [408, 500, 502].map((status) => ({ status, retryAfter: '0' }))],
    ['a connection reset', [{ reset: true }]],
  ])('%s: asked again, then the answer', async (name, failures) => {
    const path = `/items-${name.replace(/\W+/g, '-')}`;
    peer.failNext(path, failures);
    const source = await connect();
    try {
      const body = await source.source.json<{ ok: boolean; tries: number }>(path);
      expect(body).toMatchObject({ ok: true, tries: failures.length + 1 });
      expect(lines.join('\n')).toMatch(/got (HTTP \d+|econnreset); try 2 of 4/);
    } finally {
      await source.close();
    }
  });

  it('a backoff without Retry-After, and the probe is asked again too', async () => {
    peer.failNext('/health', [{ status: 504 }]);
    const source = await connect();
    try {
      await source.probe();
      expect(triesOn('/health')).toBeGreaterThanOrEqual(2);
    } finally {
      await source.close();
    }
  });

  it('gives up after max_retries and says how many tries it made (exit 4, naming the status)', async () => {
    peer.failNext('/down', Array(5).fill({ status: 503, retryAfter: '0' }));
    const source = await connect({ max_retries: '2' });
    try {
      const error = (await source.source.json('/down').catch((e: unknown) => e)) as Error & { exitCode: number };
      expect(error.exitCode).toBe(4);
      expect(error.message).toMatch(/answered HTTP 503 Service Unavailable, after 3 tries/);
      expect(triesOn('/down')).toBe(3);
    } finally {
      await source.close();
    }
  });

  it('a Retry-After past a minute is not waited for: the answer comes back at once', async () => {
    peer.failNext('/later', [{ status: 503, retryAfter: '3600' }]);
    const source = await connect();
    try {
      const reply = await source.source.fetch('/later');
      expect(reply.status).toBe(503);
      expect(triesOn('/later')).toBe(1);
    } finally {
      await source.close();
    }
  });

  it('a POST is not asked again, unless the connector says it is safe to repeat', async () => {
    peer.failNext('/search', [{ status: 503, retryAfter: '0' }]);
    const source = await connect();
    try {
      expect((await source.source.fetch('/search', { method: 'POST', body: '{}' })).status).toBe(503);
      expect(triesOn('/search')).toBe(1);
      peer.failNext('/search', [{ status: 503, retryAfter: '0' }]);
      const again = await source.source.fetch('/search', { method: 'POST', body: '{}', retry: true });
      expect(again.status).toBe(200);
      expect(triesOn('/search')).toBe(3);
    } finally {
      await source.close();
    }
  });

  it('max_retries 0 sends each request once; a 401 is never a transient failure', async () => {
    peer.failNext('/once', [{ status: 502, retryAfter: '0' }]);
    const source = await connect({ max_retries: '0' });
    try {
      expect((await source.source.fetch('/once')).status).toBe(502);
      expect(triesOn('/once')).toBe(1);
    } finally {
      await source.close();
    }
    const wrong = await authenticate(
      { auth_method: 'bearer', token: 'wrong-token-1234', base_url: peer.url, probe_path: 'health' },
      { registry: new SecretRegistry(), log: createLogger({ format: 'json', write: () => undefined }) },
    );
    try {
      const before = triesOn('/health');
      const error = (await wrong.probe().catch((e: unknown) => e)) as { exitCode: number };
      expect(error.exitCode).toBe(3);
      expect(triesOn('/health') - before).toBe(1);
    } finally {
      await wrong.close();
    }
  });
});
