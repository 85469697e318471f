/**
 * What the clients need from HTTP: one authenticated request at a time, statuses returned rather than
 * thrown. The REST source's `request` (src/sources/rest.ts) has this shape, so a connector's update()
 * can hand its `source` straight to a client: base_url joining, the credential, TLS settings,
 * timeout_seconds and the redacting error classification all come from there. Any function that
 * answers with a WHATWG `Response` also fits, e.g. `{ request: (p, i) => fetch(new URL(p, base), i) }`.
 */
import type { HeaderReader } from '../../network/index.js';

export interface TransportRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /**
   * 0: the transport sends the request once. The clients retry by their own policy
   * (retry-policy.ts), so a transport that retries too (the REST source) would multiply the tries.
   */
  retries?: 0;
}

/** The part of an answer the clients read; a `Response` and the REST source's lean reply both have it. */
export interface TransportResponse {
  readonly status: number;
  readonly url: string;
  readonly headers: HeaderReader;
  /** The whole body; the clients always read it, so the connection goes back to the pool. */
  text(): Promise<string>;
  /**
   * The body piece by piece, read in place of text() when present (the REST source's reply has it):
   * a page is then kept as bytes in a reused buffer and parsed in pieces (page-body-parse.ts).
   */
  eachChunk?(onChunk: (chunk: Uint8Array) => void): Promise<void>;
}

export interface HttpTransport {
  /** `pathOrUrl` is joined below the transport's base URL (no leading slash needed). */
  request(pathOrUrl: string, init?: TransportRequestInit): Promise<TransportResponse>;
}

/** `METHOD scheme://host/path` for messages: never the query string, which may carry a cursor or a key. */
export function describeRequest(method: string, response: TransportResponse | undefined, path: string): string {
  const url = response?.url;
  if (url) {
    try {
      const u = new URL(url);
      return `${method} ${u.protocol}//${u.host}${u.pathname}`;
    } catch {
      // fall through to the path
    }
  }
  return `${method} ${path.split('?')[0]}`;
}
