import { describe, expect, it } from 'vitest';
// internals: the transport's body buffers, below what PipelineClient exports
import { BodyBuffers } from '../../src/clients/transport/body-buffers.js';

/** A body source as a transport's eachChunk() is: chunks pushed, then the end (or a failure). */
function chunksOf(text: string, size: number, failAfter?: number) {
  return async (onChunk: (chunk: Uint8Array) => void): Promise<void> => {
    const bytes = Buffer.from(text);
    for (let at = 0, n = 0; at < bytes.length; at += size, n++) {
      if (n % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
      if (failAfter !== undefined && n === failAfter) throw new Error('connection reset');
      onChunk(bytes.subarray(at, at + size));
    }
  };
}

const text = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

describe('BodyBuffers', () => {
  it('reads a body whole, in chunks of any size, with and without a Content-Length', async () => {
    const pool = new BodyBuffers();
    for (const [length, chunk, expected] of [
      [200_000, 65_536, 200_000],
      [200_000, 7, undefined],
      [1, 1, undefined],
      [0, 1, 0],
    ] as const) {
      const body = await pool.read(chunksOf(text(length), chunk), expected);
      expect(body.length).toBe(length);
      expect(body.bytes.toString('latin1', 0, body.length)).toBe(text(length));
      body.release();
    }
  });

  it('hands a released buffer out again: a listing reuses its buffers', async () => {
    const pool = new BodyBuffers();
    const first = await pool.read(chunksOf(text(100_000), 65_536), 100_000);
    first.release();
    const second = await pool.read(chunksOf(text(90_000), 65_536), 90_000);
    expect(second.bytes).toBe(first.bytes);
    // While one is out, another read gets another buffer: the next page is read while one is parsed.
    const third = await pool.read(chunksOf(text(90_000), 65_536), 90_000);
    expect(third.bytes).not.toBe(second.bytes);
    second.release();
    third.release();
  });

  it('releasing twice gives the buffer back once', async () => {
    const pool = new BodyBuffers();
    const body = await pool.read(chunksOf(text(1000), 100), 1000);
    body.release();
    body.release();
    const a = await pool.read(chunksOf(text(1000), 100), 1000);
    const b = await pool.read(chunksOf(text(1000), 100), 1000);
    expect(a.bytes).not.toBe(b.bytes);
  });

  it('keeps at most `keep` buffers, none over `keepUpTo`: what it holds does not grow', async () => {
    const pool = new BodyBuffers({ keep: 2, keepUpTo: 150_000 });
    const bodies = await Promise.all([1, 2, 3].map(() => pool.read(chunksOf(text(100_000), 65_536), 100_000)));
    const big = await pool.read(chunksOf(text(200_000), 65_536), 200_000);
    for (const body of [...bodies, big]) body.release();
    const again = await Promise.all([1, 2, 3].map(() => pool.read(chunksOf(text(100_000), 65_536), 100_000)));
    const reused = again.filter((body) => bodies.some((b) => b.bytes === body.bytes));
    expect(reused).toHaveLength(2);
    expect(again.some((body) => body.bytes === big.bytes)).toBe(false);
  });

  it('a body that fails while read gives its buffer back and the error through', async () => {
    const pool = new BodyBuffers();
    const first = await pool.read(chunksOf(text(100_000), 10_000), 100_000);
    first.release();
    // The failing read takes that buffer...
    await expect(pool.read(chunksOf(text(100_000), 10_000, 3), 100_000)).rejects.toThrow('connection reset');
    // ...and gives it back.
    const next = await pool.read(chunksOf(text(100_000), 10_000), 100_000);
    expect(next.bytes).toBe(first.bytes);
    expect(next.bytes.toString('latin1', 0, next.length)).toBe(text(100_000));
  });

  it('a Content-Length smaller than the body only costs a copy', async () => {
    const pool = new BodyBuffers();
    const body = await pool.read(chunksOf(text(300_000), 65_536), 10);
    expect(body.bytes.toString('latin1', 0, body.length)).toBe(text(300_000));
  });
});
