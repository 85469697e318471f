import { BufferPool } from './buffer-pool.js';

/**
 * Buffers a client reads response bodies into, reused from page to page.
 *
 * Each body goes into a buffer of a BufferPool and back to it once parsed. A few are kept because
 * pages overlap: the next page is read while the last is parsed (pipeline-client.ts).
 */

/** A whole body in a buffer of the pool: `bytes[0, length)`. `release()` once it has been parsed. */
export interface BodyBytes {
  readonly bytes: Buffer;
  readonly length: number;
  release(): void;
}

const FIRST_SIZE = 64 * 1024;

export class BodyBuffers {
  readonly #pool: BufferPool;

  /** At most `keep` buffers are kept, each of at most `keepUpTo` bytes: what the pool holds does not grow with the listing. */
  constructor(options: { keep?: number; keepUpTo?: number } = {}) {
    this.#pool = new BufferPool(options);
  }

  /**
   * Reads a body to its end: `source` hands each chunk to the function it is given and resolves when
   * the body is whole (TransportResponse.eachChunk). `expected` (a Content-Length) sizes the buffer;
   * anything else (absent, NaN, 0) starts small and grows.
   */
  async read(source: (onChunk: (chunk: Uint8Array) => void) => Promise<void>, expected?: number): Promise<BodyBytes> {
    const pool = this.#pool;
    let bytes = pool.take(
      expected !== undefined && Number.isSafeInteger(expected) && expected > 0 ? expected : FIRST_SIZE,
    );
    let length = 0;
    try {
      await source((chunk) => {
        if (length + chunk.length > bytes.length) {
          const bigger = pool.take(Math.max(bytes.length * 2, length + chunk.length));
          bytes.copy(bigger, 0, 0, length);
          pool.give(bytes);
          bytes = bigger;
        }
        bytes.set(chunk, length);
        length += chunk.length;
      });
    } catch (error) {
      pool.give(bytes);
      throw error;
    }
    let released = false;
    return {
      bytes,
      length,
      release: () => {
        if (released) return;
        released = true;
        pool.give(bytes);
      },
    };
  }
}
