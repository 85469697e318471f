/**
 * What the clients need from HTTP: one authenticated request at a time, statuses returned rather than
 * thrown. The REST source's `fetch` (src/sources/rest.ts) has this shape, so a connector's update()
 * can hand its `source` straight to a client: base_url joining, the credential, TLS settings,
 * timeout_seconds and the redacting error classification all come from there.
 */
export interface TransportRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface HttpTransport {
  /** `pathOrUrl` is joined below the transport's base URL (no leading slash needed). */
  fetch(pathOrUrl: string, init?: TransportRequestInit): Promise<Response>;
}

/** `METHOD scheme://host/path` for messages: never the query string, which may carry a cursor or a key. */
export function describeRequest(method: string, response: Response | undefined, path: string): string {
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
