/**
 * Large buffers kept for reuse. A buffer of a page's size (~850 KB for 1000 connectors) made anew
 * each time is fresh memory from the kernel (~210 page faults) and, to V8, external memory that
 * hastens full collections; one handed back and taken again costs neither. The client reads page
 * bodies into these (body-buffers.ts) and the emulator assembles them in them (emulator/page-buffers.ts).
 */
export class BufferPool {
  readonly #free: Buffer[] = [];
  readonly #keep: number;
  readonly #keepUpTo: number;

  /** At most `keep` buffers are kept, each of at most `keepUpTo` bytes: what the pool holds is bounded. */
  constructor(options: { keep?: number; keepUpTo?: number } = {}) {
    this.#keep = options.keep ?? 3;
    this.#keepUpTo = options.keepUpTo ?? 16 * 2 ** 20;
  }

  /** The smallest free buffer of at least `size` bytes, or a new one of `allocate` bytes (default `size`). */
  take(size: number, allocate = size): Buffer {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++)
      if (this.#free[i]!.length >= size && (best < 0 || this.#free[i]!.length < this.#free[best]!.length)) best = i;
    if (best >= 0) return this.#free.splice(best, 1)[0]!;
    // Outside Node's shared pool: these live long and are written whole before anything reads them.
    return Buffer.allocUnsafeSlow(Math.max(size, allocate));
  }

  /** Hands a buffer back; the caller must not touch it after. */
  give(bytes: Buffer): void {
    if (bytes.length > this.#keepUpTo) return;
    this.#free.push(bytes);
    if (this.#free.length > this.#keep) {
      // Keep the largest: they fit any page that came before.
      this.#free.sort((a, b) => b.length - a.length);
      this.#free.length = this.#keep;
    }
  }
}
