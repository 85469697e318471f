import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP API on 127.0.0.1 that misbehaves on request, for the fault tests of issue 22: a
 * connection reset or a stall halfway through a JSON body, a body that is not JSON, a status on one
 * path, a redirect to another host that keeps the query string, an OAuth token endpoint that echoes
 * the secret it refuses (escaped as the test asks) or whose first token is revoked as soon as the
 * probe has used it. It serves `/health` and a paged `/items` (`{ items, next_cursor }`), counts
 * every request, and closes stalled connections when stopped.
 */

export type Fault =
  /** 200 and the first half of a JSON body, then the connection is destroyed. */
  | { kind: 'reset-mid-body' }
  /** 200 and the first half of a JSON body, then nothing more. */
  | { kind: 'stall-mid-body' }
  /** 200 with an HTML page where JSON was expected. */
  | { kind: 'not-json' }
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  /** A redirect to `to` + this request's path and query string (as a sloppy gateway writes it). */
  | { kind: 'redirect'; to: string; status?: number };

export type PeerAuth =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'query'; name: string; value: string }
  | {
      kind: 'oauth';
      clientId: string;
      clientSecret: string;
      /** The first token is revoked once the probe (`/health`) has used it: a 401 on the next path. */
      revokeFirstTokenAfterProbe?: boolean;
      /** The `error_description` of a refusal, from the secret that was sent. */
      describeRefusal?: (sentSecret: string) => string;
    }
  | { kind: 'none' };

export interface SeenRequest {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
}

export interface FaultyApi {
  url: string;
  tokenUrl: string;
  requests: SeenRequest[];
  tokensIssued: string[];
  stop(): Promise<void>;
}

export async function start(options: {
  auth: PeerAuth;
  items?: number;
  pageSize?: number;
  pageDelayMs?: number;
  faults?: Record<string, Fault>;
}): Promise<FaultyApi> {
  const items = Array.from({ length: options.items ?? 25 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` }));
  const pageSize = options.pageSize ?? 10;
  const requests: SeenRequest[] = [];
  const tokensIssued: string[] = [];
  const revoked = new Set<string>();
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const auth = options.auth;
    switch (auth.kind) {
      case 'none':
        return true;
      case 'basic':
        return (
          req.headers.authorization === `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
        );
      case 'query':
        return url.searchParams.get(auth.name) === auth.value;
      case 'oauth': {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        return token !== undefined && tokensIssued.includes(token) && !revoked.has(token);
      }
    }
  };

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = options.auth;
    if (auth.kind !== 'oauth') return send(res, 404, { error: 'not found' });
    const form = new URLSearchParams(await bodyOf(req));
    const secret = form.get('client_secret') ?? '';
    if (form.get('client_id') !== auth.clientId || secret !== auth.clientSecret)
      return send(res, 401, {
        error: 'invalid_client',
        error_description: auth.describeRefusal?.(secret) ?? 'client authentication failed',
      });
    const issued = `at-${tokensIssued.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
    tokensIssued.push(issued);
    send(res, 200, { access_token: issued, token_type: 'Bearer', expires_in: 3600 });
  };

  const fault = (res: ServerResponse, req: IncomingMessage, url: URL, f: Fault) => {
    const half = JSON.stringify({ items }).slice(0, 40);
    switch (f.kind) {
      case 'reset-mid-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
        res.write(half, () => setTimeout(() => req.socket.destroy(), 50));
        return;
      case 'stall-mid-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
        res.write(half);
        return;
      case 'not-json':
        return send(
          res,
          200,
          '<html><body>Service temporarily in maintenance</body></html>',
          'text/html; charset=utf-8',
        );
      case 'status':
        return send(res, f.status, f.body ?? { error: 'injected' }, f.contentType);
      case 'redirect':
        res.writeHead(f.status ?? 301, { location: `${f.to}${url.pathname}${url.search}` });
        res.end();
        return;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      authorization: req.headers.authorization,
    });
    if (url.pathname === '/oauth/token' && req.method === 'POST') return token(req, res);
    if (!authorized(req, url)) return send(res, 401, { error: 'unauthorized' });
    const f = options.faults?.[url.pathname];
    if (f) return fault(res, req, url, f);
    if (url.pathname === '/health') {
      const auth = options.auth;
      if (auth.kind === 'oauth' && auth.revokeFirstTokenAfterProbe && tokensIssued.length === 1)
        revoked.add(tokensIssued[0]!);
      return send(res, 200, { ok: true });
    }
    if (url.pathname === '/items') {
      if (options.pageDelayMs) await new Promise((resolve) => setTimeout(resolve, options.pageDelayMs));
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = items.slice(start, start + pageSize);
      const next = start + pageSize < items.length ? String(start + pageSize) : undefined;
      return send(res, 200, { items: page, ...(next ? { next_cursor: next } : {}) });
    }
    send(res, 404, { error: 'not found' });
  };

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    tokenUrl: `${url}/oauth/token`,
    requests,
    tokensIssued,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
