/**
 * Buffers a client reads response bodies into, reused from page to page.
 *
 * A page of 1000 connectors is ~850 KB. A new buffer of that size each page is fresh memory from the
 * kernel (~210 page faults); a buffer that is handed back after its page is parsed costs none. A few
 * are kept because pages overlap: the next page is read while the last is parsed (pipeline-client.ts).
 */

/** A whole body in a buffer of the pool: `bytes[0, length)`. `release()` once it has been parsed. */
export interface BodyBytes {
  readonly bytes: Buffer;
  readonly length: number;
  release(): void;
}

const FIRST_SIZE = 64 * 1024;

export class BodyBuffers {
  readonly #free: Buffer[] = [];
  readonly #keep: number;
  readonly #keepUpTo: number;

  /** At most `keep` buffers are kept, each of at most `keepUpTo` bytes: what the pool holds does not grow with the listing. */
  constructor(options: { keep?: number; keepUpTo?: number } = {}) {
    this.#keep = options.keep ?? 3;
    this.#keepUpTo = options.keepUpTo ?? 16 * 2 ** 20;
  }

  /**
   * Reads a body to its end: `source` hands each chunk to the function it is given and resolves when
   * the body is whole (TransportResponse.eachChunk). `expected` (a Content-Length) sizes the buffer;
   * anything else (absent, NaN, 0) starts small and grows.
   */
  async read(source: (onChunk: (chunk: Uint8Array) => void) => Promise<void>, expected?: number): Promise<BodyBytes> {
    let bytes = this.#take(expected !== undefined && Number.isSafeInteger(expected) && expected > 0 ? expected : FIRST_SIZE);
    let length = 0;
    try {
      await source((chunk) => {
        if (length + chunk.length > bytes.length) {
          const bigger = this.#take(Math.max(bytes.length * 2, length + chunk.length));
          bytes.copy(bigger, 0, 0, length);
          this.#give(bytes);
          bytes = bigger;
        }
        bytes.set(chunk, length);
        length += chunk.length;
      });
    } catch (error) {
      this.#give(bytes);
      throw error;
    }
    let released = false;
    return {
      bytes,
      length,
      release: () => {
        if (released) return;
        released = true;
        this.#give(bytes);
      },
    };
  }

  /** The smallest free buffer that fits, or a new one. */
  #take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++)
      if (this.#free[i]!.length >= size && (best < 0 || this.#free[i]!.length < this.#free[best]!.length)) best = i;
    if (best >= 0) return this.#free.splice(best, 1)[0]!;
    // Outside Node's shared pool: these live long and are written whole before anything reads them.
    return Buffer.allocUnsafeSlow(size);
  }

  #give(bytes: Buffer): void {
    if (bytes.length > this.#keepUpTo) return;
    this.#free.push(bytes);
    if (this.#free.length > this.#keep) {
      // Keep the largest: they fit any page that came before.
      this.#free.sort((a, b) => b.length - a.length);
      this.#free.length = this.#keep;
    }
  }
}
