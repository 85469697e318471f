import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real session-token API on 127.0.0.1, Metabase-style: `POST /login` with a username and password
 * (JSON or a form) answers with a fresh session token (in the body with `expires_in`, in a header
 * or in a cookie, as asked), and `/health` and a paged `/items` accept `<header>: <prefix> <token>`
 * while the token lives. `revokeAll()` ends every session (the next request gets a 401);
 * `loginDelayMs` holds each login back, so concurrent callers overlap it.
 */
export interface SessionApiOptions {
  username: string;
  password: string;
  /** Where the login answer carries the token. Default body (`{"token": …, "expires_in": …}`). */
  tokenIn?: 'body' | 'header' | 'cookie';
  /** Header the API reads the token from, and the text before it. Default `Authorization: Token <t>`. */
  header?: string;
  prefix?: string;
  expiresIn?: number;
  items?: number;
  pageSize?: number;
}

export interface SessionApiPeer {
  url: string;
  loginUrl: string;
  /** How many logins succeeded, and every token handed out. */
  logins(): number;
  tokens: string[];
  /** The status of each API request (not logins), in order. */
  apiStatuses: number[];
  revokeAll(): void;
  loginDelayMs: number;
  stop(): Promise<void>;
}

export async function startSessionApi(options: SessionApiOptions): Promise<SessionApiPeer> {
  const live = new Set<string>();
  const peer: Omit<SessionApiPeer, 'url' | 'loginUrl' | 'stop'> = {
    logins: () => peer.tokens.length,
    tokens: [],
    apiStatuses: [],
    revokeAll: () => live.clear(),
    loginDelayMs: 0,
  };
  const items = Array.from({ length: options.items ?? 25 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` }));
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { error: 'peer failed' }));
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    if (url.pathname === '/login') return login(req, res);
    const header = req.headers[(options.header ?? 'authorization').toLowerCase()];
    const prefix = options.prefix ?? 'Token';
    const token = typeof header === 'string' && header.startsWith(prefix) ? header.slice(prefix.length).trim() : '';
    const status = live.has(token) ? (url.pathname === '/health' || url.pathname === '/items' ? 200 : 404) : 401;
    peer.apiStatuses.push(status);
    if (status !== 200) return send(res, status, { error: status === 401 ? 'unauthorized' : 'not found' });
    if (url.pathname === '/health') return send(res, 200, { ok: true });
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const size = options.pageSize ?? 10;
    const next = start + size < items.length ? String(start + size) : undefined;
    send(res, 200, { items: items.slice(start, start + size), ...(next ? { next_cursor: next } : {}) });
  };
  const login = async (req: IncomingMessage, res: ServerResponse) => {
    const fields = await readFields(req);
    if (peer.loginDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, peer.loginDelayMs));
    if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' });
    if (fields.username !== options.username || fields.password !== options.password)
      return send(res, 401, { error: 'invalid credentials' });
    const token = `sess_${randomBytes(18).toString('base64url')}`;
    live.add(token);
    peer.tokens.push(token);
    const expiresIn = options.expiresIn ?? 600;
    if (options.tokenIn === 'header') return send(res, 200, { ok: true }, { 'x-session-token': token });
    if (options.tokenIn === 'cookie')
      return send(
        res,
        200,
        { ok: true },
        { 'set-cookie': `sid=${token}; Path=/; HttpOnly; Expires=Wed, 21 Oct 2099 07:28:00 GMT` },
      );
    send(res, 200, { token, expires_in: expiresIn });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return Object.assign(peer, {
    url,
    loginUrl: `${url}/login`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function readFields(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) return JSON.parse(text || '{}');
  return Object.fromEntries(new URLSearchParams(text));
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
