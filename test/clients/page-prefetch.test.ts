import { afterEach, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../src/clients/index.js';
// internals: the cursor guessed from a page body's end, which the prefetch asks with (below PipelineClient)
import { guessNextCursor } from '../../src/clients/pipeline/next-cursor-guess.js';
import { authenticate } from '../../src/connector/index.js';
import { start, type PagedApiOptions, type PagedApiPeer } from '../peers/threaded-paged-api.js';
import { until } from '../helpers/source-session.js';

/**
 * Listing all pages asks for page n+1 as soon as page n's body has arrived, with the cursor read from
 * the body's end, so the service works while the caller works. Shown against a server in a worker
 * thread, which answers while the test's main thread is busy.
 */

describe('guessNextCursor', () => {
  it('reads the cursor the real service and the emulator put last', () => {
    expect(guessNextCursor('{"code":"Success","data":{"items":[{"a":1}],"next_cursor":"eyJwIjoyfQ=="}}')).toBe(
      'eyJwIjoyfQ==',
    );
    expect(guessNextCursor('{"data":{"items":[],"next_cursor" : "c1" }\n}\n')).toBe('c1');
  });

  it('unescapes a JSON-escaped cursor', () => {
    expect(guessNextCursor('{"data":{"items":[],"next_cursor":"a\\/b\\u0041\\"q"}}')).toBe('a/bA"q');
  });

  it('gives nothing when the body does not end with a cursor', () => {
    expect(guessNextCursor('{"code":"Success","data":{"items":[]}}')).toBeUndefined();
    expect(guessNextCursor('{"data":{"next_cursor":"c1","items":[]}}')).toBeUndefined();
    expect(guessNextCursor('{"data":{"items":[],"next_cursor":""}}')).toBeUndefined();
    expect(guessNextCursor('{"data":{"items":[],"next_cursor":null}}')).toBeUndefined();
    expect(guessNextCursor('')).toBeUndefined();
  });

  it('reads only the end of a large body', () => {
    const big = `{"data":{"items":[${'{"x":"y"},'.repeat(100_000)}{}],"next_cursor":"last"}}`;
    expect(guessNextCursor(big)).toBe('last');
  });
});

const USER = 'pipeline-key';
const SECRET = 'prefetch-secret-7f1c';
let peer: PagedApiPeer | undefined;
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  await peer?.stop();
  peer = undefined;
  close = undefined;
});

async function clientFor(
  options: Omit<PagedApiOptions, 'username' | 'password'>,
): Promise<{ client: PipelineClient; peer: PagedApiPeer }> {
  peer = await start({ ...options, username: USER, password: SECRET });
  const auth = await authenticate(
    { auth_method: 'basic', username: USER, password: SECRET, base_url: peer.url },
    { source: 'rest' },
  );
  close = () => auth.close();
  return { client: new PipelineClient(auth.source), peer };
}

/** Blocks the main thread, as a consumer doing synchronous work on each record would. */
function busy(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const clock = () => performance.timeOrigin + performance.now();

describe('all pages: the next page is on the wire while the caller works on this one', () => {
  it('each next page request arrives before the caller has finished the page before it', async () => {
    const { client, peer } = await clientFor({ pages: 4, perPage: 5, layout: 'cursor-last' });
    const finishedPage: number[] = [];
    const ids: string[] = [];
    for await (const connector of client.connectors('grp', { limit: 5 })) {
      ids.push(connector.id);
      // Synchronous work on the page's last record: no await lets the event loop run meanwhile.
      if (ids.length % 5 === 0) {
        busy(150);
        finishedPage.push(clock());
      }
    }
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `conn_${String(i).padStart(4, '0')}`));
    const requests = await peer.requests();
    expect(requests.map((r) => r.cursor)).toEqual([null, 'p1', 'p2', 'p3']);
    // The request for page n+1 reached the server while the caller was still busy with page n.
    for (let n = 0; n < 3; n++) expect(requests[n + 1]!.arrivedAt).toBeLessThan(finishedPage[n]! - 100);
  });

  it('a wrong guess costs one request and changes nothing: every record once, in order', async () => {
    const { client, peer } = await clientFor({ pages: 3, perPage: 4, layout: 'decoy' });
    const ids: string[] = [];
    for await (const connector of client.connectors('grp', { limit: 4 })) ids.push(connector.id);
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `conn_${String(i).padStart(4, '0')}`));
    // Every page ends with a decoy cursor: each is tried once (the server refuses it) and dropped.
    // A dropped request is not waited for, so the last may still be on its way, and a decoy may
    // arrive after the right page's request (it waits for its connection's turn).
    let requests = await peer.requests();
    await until(async () => (requests = await peer.requests()).length >= 6);
    const pages = requests.filter((r) => !r.cursor?.startsWith('decoy'));
    const decoys = requests.filter((r) => r.cursor?.startsWith('decoy'));
    expect(pages.map((r) => [r.cursor, r.status])).toEqual([
      [null, 200],
      ['p1', 200],
      ['p2', 200],
    ]);
    expect(decoys.map((r) => [r.cursor, r.status]).sort()).toEqual([
      ['decoy0', 400],
      ['decoy1', 400],
      ['decoy2', 400],
    ]);
    // Each decoy was guessed from its page, so it was sent only after that page had arrived.
    for (let n = 0; n < 3; n++)
      expect(decoys.find((r) => r.cursor === `decoy${n}`)!.arrivedAt).toBeGreaterThan(pages[n]!.arrivedAt);
  });

  it('stopping early leaves no request behind unread', async () => {
    const { client, peer } = await clientFor({ pages: 5, perPage: 3, layout: 'cursor-last' });
    let seen = 0;
    for await (const _ of client.connectors('grp', { limit: 3 })) if (++seen === 4) break;
    // Page 0 was read, page 1 started; page 2 was prefetched when page 1 arrived, nothing beyond.
    const requests = await peer.requests();
    expect(requests.map((r) => r.cursor)).toEqual([null, 'p1', 'p2']);
  });
});
