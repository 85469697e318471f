import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { freePort } from './daemon.js';

/**
 * A real HTTP API on 127.0.0.1 for the header auth methods: it checks one expected credential
 * (Basic, Bearer or an API key in a header or query parameter), serves `/health` and a paged
 * `/items`, and counts every request so tests can assert "one round trip". With `tls` it speaks
 * HTTPS with that certificate, at `https://localhost:<port>`.
 */
export type ExpectedAuth =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'query'; name: string; value: string }
  /** A credential the test checks with a library of its own (a JWT verifier, an OAuth 1.0a signer). */
  | {
      kind: 'verify';
      accepts: (request: {
        method: string;
        url: URL;
        headers: IncomingMessage['headers'];
        body: string;
      }) => Promise<boolean>;
    };

export interface HttpApiPeer {
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  /** TCP connections accepted so far (a TLS handshake that failed counts too). */
  connections(): number;
  stop(): Promise<void>;
}

export async function start(options: {
  auth: ExpectedAuth;
  items?: number;
  pageSize?: number;
  healthStatus?: number;
  tls?: { certificatePem: string; privateKeyPem: string };
  /** The item with this id (1, 2, …); default `{id, name, price, active}`. */
  item?: (id: number) => Record<string, unknown>;
}): Promise<HttpApiPeer> {
  const item = options.item ?? ((id: number) => ({ id, name: `item ${id}`, price: id * 1.25, active: id % 2 === 1 }));
  const items = Array.from({ length: options.items ?? 25 }, (_, i) => item(i + 1));
  const pageSize = options.pageSize ?? 10;
  const requests: HttpApiPeer['requests'] = [];

  const authorized = async (req: IncomingMessage, url: URL): Promise<boolean> => {
    const a = options.auth;
    switch (a.kind) {
      case 'basic':
        return req.headers.authorization === `Basic ${Buffer.from(`${a.username}:${a.password}`).toString('base64')}`;
      case 'bearer':
        return req.headers.authorization === `Bearer ${a.token}`;
      case 'header':
        return req.headers[a.name.toLowerCase()] === a.value;
      case 'query':
        return url.searchParams.get(a.name) === a.value;
      case 'verify': {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        return a.accepts({ method: req.method ?? 'GET', url, headers: req.headers, body });
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!(await authorized(req, url))) return send(401, { error: 'unauthorized' });
    if (url.pathname === '/health') return send(options.healthStatus ?? 200, { ok: true });
    if (url.pathname === '/items') {
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = items.slice(start, start + pageSize);
      const next = start + pageSize < items.length ? String(start + pageSize) : undefined;
      return send(200, { items: page, ...(next ? { next_cursor: next } : {}) });
    }
    send(404, { error: 'not found' });
  };
  const server = options.tls
    ? createTlsServer({ cert: options.tls.certificatePem, key: options.tls.privateKeyPem }, (q, r) => void handle(q, r))
    : createServer((q, r) => void handle(q, r));
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    connections: () => connections,
    url: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on which nothing listens: one bound by the OS and released, as a free port is found. */
export const closedPort = freePort;
