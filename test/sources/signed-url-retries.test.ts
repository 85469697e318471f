import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { loadSource } from '../../src/sources/index.js';
import type { SignedUrlSource } from '../../src/sources/index.js';
import { start, type Failure, type FlakyApi } from '../peers/flaky-api.js';

/**
 * The signed-URL source asks again after a failure that passes, as the REST source does
 * (rest-retries.test.ts): 408, 429, 500, 502, 503, 504 and a reset connection, `Retry-After`
 * followed, `max_retries` the budget, and a download that gives up says how many tries it made.
 * Against a real server on 127.0.0.1 that fails each way (test/peers/flaky-api.ts); the signing
 * query stays out of every line.
 */

const SIGNATURE = 'X-Amz-Signature=f1a2c3e4d5b6a7980112233445566778';
let peer: FlakyApi;
let lines: string[];

beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer?.stop();
});

async function connect(path: string, extra: Record<string, string> = {}) {
  lines = [];
  const log = createLogger({
    format: 'json',
    level: 'debug',
    registry: new SecretRegistry(),
    write: (l) => lines.push(l),
  });
  const source = (await loadSource('signed-url')) as never;
  return authenticate<SignedUrlSource>(
    { auth_method: 'signed_url', signed_url: `${peer.url}${path}?${SIGNATURE}`, ...extra },
    { registry: new SecretRegistry(), log, source },
  );
}

const triesOn = (path: string) => peer.requests.filter((r) => r.path === path).length;
const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe('transient failures of the signed-URL source', () => {
  it.each<[string, Failure[]]>([
    ['503 with Retry-After: 1', [{ status: 503, retryAfter: '1' }]],
    ['429 with Retry-After: 0', [{ status: 429, retryAfter: '0' }]],
    ['408, 500, 502 and 504, each with Retry-After: 0', [408, 500, 502].map((status) => ({ status, retryAfter: '0' }))],
    ['a connection reset', [{ reset: true }]],
  ])('%s: the download is asked again, then the file', async (name, failures) => {
    const path = `/exports/${name.replace(/\W+/g, '-')}.json`;
    const source = await connect(path);
    try {
      peer.failNext(path, failures);
      const body = JSON.parse(await text(await source.source.stream())) as { ok: boolean; tries: number };
      expect(body.ok).toBe(true);
      expect(triesOn(path)).toBe(failures.length + 1);
      expect(lines.join('\n')).toMatch(/got (HTTP \d+|econnreset); try 2 of 4/);
      expect(lines.join('\n')).not.toContain(SIGNATURE);
    } finally {
      await source.close();
    }
  });

  it('the probe is asked again too, with a backoff when no Retry-After is given', async () => {
    const path = '/exports/probe.csv';
    peer.failNext(path, [{ status: 504 }]);
    const source = await connect(path);
    try {
      expect(await source.probe()).toMatchObject({ outcome: 'HTTP 200' });
      expect(triesOn(path)).toBe(2);
    } finally {
      await source.close();
    }
  });

  it('gives up after max_retries and says how many tries it made (exit 4, naming the status)', async () => {
    const path = '/exports/down.csv';
    const source = await connect(path, { max_retries: '2' });
    try {
      peer.failNext(path, Array(5).fill({ status: 503, retryAfter: '0' }));
      const before = triesOn(path);
      const error = (await source.source.stream().catch((e: unknown) => e)) as Error & { exitCode: number };
      expect(error.exitCode).toBe(4);
      expect(error.message).toMatch(/HTTP 503 Service Unavailable, after 3 tries/);
      expect(error.message).not.toContain(SIGNATURE);
      expect(triesOn(path) - before).toBe(3);
    } finally {
      await source.close();
    }
  });

  it('a Retry-After past a minute is not waited for, and max_retries 0 sends once', async () => {
    const path = '/exports/later.csv';
    const source = await connect(path);
    try {
      peer.failNext(path, [{ status: 503, retryAfter: '3600' }]);
      const before = triesOn(path);
      expect((await source.source.fetch()).status).toBe(503);
      expect(triesOn(path) - before).toBe(1);
    } finally {
      await source.close();
    }
    const once = await connect(path, { max_retries: '0' });
    try {
      peer.failNext(path, [{ status: 502, retryAfter: '0' }]);
      const before = triesOn(path);
      expect((await once.source.fetch()).status).toBe(502);
      expect(triesOn(path) - before).toBe(1);
    } finally {
      await once.close();
    }
  });
});
