import type { ServerResponse } from 'node:http';
import { BufferPool } from '../../clients/index.js';

/**
 * Buffers the emulator assembles page bodies in, reused from response to response.
 *
 * Why: a page of 1000 connectors is ~850 KB. `Buffer.concat` made a new one per response, external
 * memory to V8: 85 MB per listing of 100,000 connectors, answered with full collections of the whole
 * store (on Node 24 the emulator then spent more time per page than the client parsing it). A pooled
 * buffer (clients/buffer-pool.ts) handed back once its response is written costs nothing.
 *
 * A buffer goes back to the pool only after the response's 'finish' (Node has handed every byte to
 * the socket); a response closed before that leaves its buffer to the garbage collector, so bytes
 * still queued for a write are never overwritten.
 */
export class PageBuffers {
  /** One buffer per response being written at once is plenty for an emulator. */
  readonly #pool = new BufferPool({ keep: 4 });

  /** Writes `parts` as one body on `res` (status 200, JSON), copied into a pooled buffer. */
  send(res: ServerResponse, parts: readonly Buffer[]): void {
    let length = 0;
    for (const part of parts) length += part.length;
    // Room to spare, so the next page (a little longer, say) fits the same buffer.
    const buffer = this.#pool.take(length, length + (length >> 3));
    let at = 0;
    for (const part of parts) at += part.copy(buffer, at);
    res.once('finish', () => this.#pool.give(buffer));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
    res.end(buffer.subarray(0, length));
  }
}
