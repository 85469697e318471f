import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP API on 127.0.0.1 that fails in passing: each path has a queue of failures served one
 * per request before it answers 200 (`{ ok: true, path, tries }`), so a test can say "503 with
 * Retry-After: 1, then 429, then fine" and count what arrived. A `reset` destroys the connection
 * before any answer. Without a token it asks for none: a signed URL is its own credential.
 */

export type Failure = { status: number; retryAfter?: string } | { reset: true };

export interface FlakyApi {
  url: string;
  /** Requests per path, in order: method and path. */
  requests: { method: string; path: string }[];
  /** Replaces the failures waiting on `path`. */
  failNext(path: string, failures: Failure[]): void;
  stop(): Promise<void>;
}

export async function start(token?: string): Promise<FlakyApi> {
  const queues = new Map<string, Failure[]>();
  const requests: FlakyApi['requests'] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://peer').pathname;
    requests.push({ method: req.method ?? 'GET', path });
    req.resume();
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`)
      return send(res, 401, { error: 'unauthorized' });
    const failure = queues.get(path)?.shift();
    if (failure && 'reset' in failure) return void req.socket.destroy();
    if (failure) {
      const headers: Record<string, string> =
        failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter };
      return send(res, failure.status, { error: 'not now' }, headers);
    }
    send(res, 200, { ok: true, path, tries: requests.filter((r) => r.path === path).length });
  };
  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (path, failures) => void queues.set(path, [...failures]),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
