import type { Dispatcher } from 'undici';

/**
 * What a JSON API call needs of an answer: the status, a header, the body as text. A WHATWG
 * `Response` has this shape, and so does the lean reply of `HttpClient.request()` below, which reads
 * undici's Node stream directly: no ReadableStream, Headers or Response objects per request.
 */
export interface HttpReply {
  readonly status: number;
  /** The URL of the request this answers: with redirects followed hop by hop (the REST source does), the last hop's. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The whole body, UTF-8 decoded. Read it (or `discard()` it) so the connection can be reused. */
  text(): Promise<string>;
  /**
   * Hands the body to `onChunk` piece by piece as it arrives and resolves at its end: for a reader
   * that keeps the bytes in a buffer of its own (the paging client does, so that a large page never
   * becomes one large string). Push, not an async iterator: a promise per chunk would cost more than
   * the copy. Use it once, in place of text().
   */
  eachChunk(onChunk: (chunk: Uint8Array) => void): Promise<void>;
  /** Reads a small body to its end (keeping the connection) or drops a large one. */
  discard(): Promise<void>;
}

/** undici's `request()` answer as an HttpReply; `onBodyError` classifies a failure while reading. */
export function undiciReply(
  data: Dispatcher.ResponseData,
  url: URL,
  onBodyError: (error: unknown) => Error,
): HttpReply {
  const headers = data.headers;
  return {
    status: data.statusCode,
    url: url.href,
    headers: {
      get(name: string): string | null {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    async text() {
      try {
        return await data.body.text();
      } catch (error) {
        throw onBodyError(error);
      }
    },
    eachChunk(onChunk) {
      return new Promise<void>((resolve, reject) => {
        const body = data.body;
        body.on('data', (chunk: Uint8Array) => {
          try {
            onChunk(chunk);
          } catch (error) {
            body.destroy(error as Error);
          }
        });
        body.once('end', () => resolve());
        body.once('error', (error) => reject(onBodyError(error)));
      });
    },
    async discard() {
      // dump() reads up to 128 KiB to keep the connection, and destroys it beyond.
      await data.body.dump().catch(() => undefined);
    },
  };
}
