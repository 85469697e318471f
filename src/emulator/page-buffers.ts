import type { ServerResponse } from 'node:http';

/**
 * Buffers the emulator assembles page bodies in, reused from response to response.
 *
 * Why: a page of 1000 connectors is ~850 KB. `Buffer.concat` makes a new one per response, and every
 * such buffer is external memory to V8: a listing of 100,000 connectors made 85 MB of it, which V8
 * answers with full collections of the whole store (on Node 24 the emulator then spent more time per
 * page than the client parsing it). A buffer handed back once its response is written costs nothing.
 *
 * A buffer goes back to the pool only after the response's 'finish' (Node has handed every byte to
 * the socket); a response closed before that leaves its buffer to the garbage collector, so bytes
 * still queued for a write are never overwritten.
 */
export class PageBuffers {
  readonly #free: Buffer[] = [];
  /** Buffers kept for reuse: one per response being written at once is plenty for an emulator. */
  readonly #keep: number;

  constructor(keep = 4) {
    this.#keep = keep;
  }

  /** Writes `parts` as one body on `res` (status 200, JSON), copied into a pooled buffer. */
  send(res: ServerResponse, parts: readonly Buffer[]): void {
    let length = 0;
    for (const part of parts) length += part.length;
    const buffer = this.#take(length);
    let at = 0;
    for (const part of parts) at += part.copy(buffer, at);
    res.once('finish', () => this.#give(buffer));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
    res.end(buffer.subarray(0, length));
  }

  /** The smallest free buffer that fits, or a new one sized with room to spare for the next page. */
  #take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++)
      if (this.#free[i]!.length >= size && (best < 0 || this.#free[i]!.length < this.#free[best]!.length)) best = i;
    if (best >= 0) return this.#free.splice(best, 1)[0]!;
    return Buffer.allocUnsafeSlow(size + (size >> 3));
  }

  #give(buffer: Buffer): void {
    if (this.#free.length < this.#keep) this.#free.push(buffer);
  }
}
