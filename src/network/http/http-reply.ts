import type { IncomingMessage } from 'node:http';

/**
 * What is read of an answer's headers: a header's value, several joined by ", ", or null. A WHATWG
 * `Headers`, a HeaderList and HttpReply's headers all have it.
 */
export interface HeaderReader {
  get(name: string): string | null;
}

/** What any answer tells before its body: a WHATWG `Response` has this shape, and so does HttpReply. */
export interface HttpAnswer {
  readonly status: number;
  /** The reason phrase the server sent ("Unauthorized"), or "". */
  readonly statusText: string;
  readonly headers: HeaderReader;
}

/**
 * What a JSON API call needs of an answer: the status, a header, the body as text. The lean reply of
 * `HttpClient.request()` reads Node's response stream directly: no ReadableStream, Headers or
 * Response objects per request.
 */
export interface HttpReply extends HttpAnswer {
  /** The URL of the request this answers: with redirects followed hop by hop (the REST source does), the last hop's. */
  readonly url: string;
  /** The whole body, UTF-8 decoded (a leading byte order mark dropped). Read it (or `discard()` it) so the connection can be reused. */
  text(): Promise<string>;
  /**
   * Hands the body to `onChunk` piece by piece as it arrives and resolves at its end: for a reader
   * that keeps the bytes in a buffer of its own (the paging client does, so that a large page never
   * becomes one large string). Push, not an async iterator: a promise per chunk would cost more than
   * the copy. Use it once, in place of text().
   */
  eachChunk(onChunk: (chunk: Uint8Array) => void): Promise<void>;
  /** At most `limit` characters of the body (an error page to recognise); the rest is discarded. */
  textStart(limit: number): Promise<string>;
  /** Reads a small body to its end (keeping the connection) or drops a large one. */
  discard(): Promise<void>;
}

/** Bodies up to this size are read to their end by discard(), which keeps the connection for reuse. */
const DISCARD_LIMIT = 128 * 1024;

/** Node's answer as an HttpReply; `onBodyError` classifies a failure while reading. */
export function nodeReply(answer: IncomingMessage, url: URL, onBodyError: (error: unknown) => Error): HttpReply {
  const headers = answer.headers;
  /** Resolves at the body's end; `onChunk` returning false stops reading and drops the rest. */
  const read = (onChunk: (chunk: Buffer) => boolean | void): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      answer.on('data', (chunk: Buffer) => {
        let more: boolean | void;
        try {
          more = onChunk(chunk);
        } catch (error) {
          answer.destroy(error as Error);
          return;
        }
        if (more === false) {
          answer.destroy();
          resolve();
        }
      });
      answer.once('end', resolve);
      answer.once('error', (error) => reject(onBodyError(error)));
    });
  const decode = (chunks: Buffer[]) => new TextDecoder().decode(Buffer.concat(chunks));
  return {
    status: answer.statusCode ?? 0,
    statusText: answer.statusMessage ?? '',
    url: url.href,
    headers: {
      get(name: string): string | null {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    async text() {
      const chunks: Buffer[] = [];
      await read((chunk) => void chunks.push(chunk));
      return decode(chunks);
    },
    eachChunk: (onChunk) => read((chunk) => void onChunk(chunk)),
    async textStart(limit) {
      const chunks: Buffer[] = [];
      let size = 0;
      // Bytes, then characters: `limit` bytes hold at least `limit` characters' worth of the start.
      await read((chunk) => (chunks.push(chunk), (size += chunk.length) < limit)).catch(() => undefined);
      return decode(chunks).slice(0, limit);
    },
    async discard() {
      if (answer.readableEnded || answer.destroyed) return;
      let size = 0;
      await read((chunk) => (size += chunk.length) <= DISCARD_LIMIT).catch(() => undefined);
    },
  };
}
