import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type Authenticated } from '../../src/connector/index.js';
import { SourceIdentityError, SourceUnreachableError } from '../../src/errors/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { RestSource } from '../../src/sources/index.js';
import { createCa, issueServer } from '../peers/certificates.js';
import { closedPort, start as startHttpApi } from '../peers/http-api.js';
import { rejection, type Failure } from '../helpers/rejection.js';

/**
 * `source.request()`, the lean undici-request() path of the REST source, end to end against real
 * node:http servers on loopback: credentials, defaults, large bodies, connection reuse, redirects,
 * the 401 retry with a refreshed OAuth token, and how network failures are classified.
 */

const USERNAME = 'alice';
const PASSWORD = 'correct-horse-battery';
const BASIC = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;
const CLIENT_ID = 'client-a';
const CLIENT_SECRET = 'client-secret-Zq81xT';

/** The password / client secret, and the base64 forms they travel in. */
const LEAKS = [
  PASSWORD,
  Buffer.from(PASSWORD).toString('base64'),
  Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64'),
  CLIENT_SECRET,
  Buffer.from(CLIENT_SECRET).toString('base64'),
  Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'),
];

// ---------------------------------------------------------------------------------------------
// A small real server: records each request with its body, counts TCP connections.

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Peer {
  url: string;
  host: string;
  requests: Seen[];
  /** TCP (or TLS) connections accepted since start. */
  connections: number;
  stop(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

async function serve(handle: Handler, tls?: { key: string; cert: string }): Promise<Peer> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: Seen = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      peer.requests.push(seen);
      handle(req, res, seen);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  const peer: Peer = { url: '', host: '', requests: [], connections: 0, stop: async () => undefined };
  server.on(tls ? 'secureConnection' : 'connection', () => peer.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  peer.host = `127.0.0.1:${port}`;
  peer.url = `${tls ? 'https' : 'http'}://${peer.host}`;
  peer.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return peer;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

// ---------------------------------------------------------------------------------------------
// Shared helpers: every source opened is closed after its test; delayed answers are cancelled.

const opened: Authenticated<RestSource>[] = [];
const timers = new Set<NodeJS.Timeout>();
afterEach(async () => {
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

function later(ms: number, work: () => void): void {
  const timer = setTimeout(() => {
    timers.delete(timer);
    work();
  }, ms);
  timers.add(timer);
}

async function open(
  configuration: Record<string, string>,
  options: { now?: () => number } = {},
): Promise<Authenticated<RestSource>> {
  const auth = await authenticate(configuration, { source: 'rest', registry: new SecretRegistry(), ...options });
  opened.push(auth);
  return auth;
}

const basicConfiguration = (baseUrl: string, extra: Record<string, string> = {}) => ({
  auth_method: 'basic',
  username: USERNAME,
  password: PASSWORD,
  base_url: baseUrl,
  ...extra,
});

function expectNoSecret(error: Failure): void {
  for (const text of [error.message, error.hint ?? '', String(error.stack)])
    for (const leak of LEAKS) expect(text).not.toContain(leak);
}

// ---------------------------------------------------------------------------------------------

describe('request() against the http-api peer (basic auth)', () => {
  it('sends the Basic header and accept: application/json, keeps a caller accept, returns 404 and 401 as statuses', async () => {
    const peer = await startHttpApi({ auth: { kind: 'basic', username: USERNAME, password: PASSWORD } });
    try {
      const { source } = await open(basicConfiguration(peer.url));

      const page = await source.request('/items');
      expect(page.status).toBe(200);
      expect(page.url).toBe(`${peer.url}/items`);
      expect((JSON.parse(await page.text()) as { items: unknown[] }).items).toHaveLength(10);
      expect(peer.requests[0]!.headers.authorization).toBe(BASIC);
      expect(peer.requests[0]!.headers.accept).toBe('application/json');

      const custom = await source.request('items', { headers: { Accept: 'application/vnd.api+json' } });
      expect(custom.status).toBe(200);
      await custom.text();
      expect(peer.requests[1]!.headers.accept).toBe('application/vnd.api+json');

      const missing = await source.request('/no-such-thing');
      expect(missing.status).toBe(404);
      expect(JSON.parse(await missing.text())).toEqual({ error: 'not found' });

      // A wrong password: the 401 comes back as a status, and basic auth cannot refresh, so no retry.
      const wrong = await open(basicConfiguration(peer.url, { password: 'wrong-horse-battery' }));
      const before = peer.requests.length;
      const refused = await wrong.source.request('/items');
      expect(refused.status).toBe(401);
      await refused.discard();
      expect(peer.requests.length - before).toBe(1);
    } finally {
      await Promise.all(opened.splice(0).map((a) => a.close()));
      await peer.stop();
    }
  });
});

describe('request() against a local API', () => {
  let api: Peer;
  let other: Peer;
  const big = JSON.stringify({
    items: Array.from({ length: 30_000 }, (_, i) => ({
      id: i,
      name: `item ${i} — ünïcödé ✓`,
      tags: ['a', 'b', String(i % 97)],
      price: i * 1.25,
    })),
  });

  beforeAll(async () => {
    other = await serve((_req, res) => json(res, 200, { landed: true }));
    api = await serve((req, res, seen) => {
      if (seen.headers.authorization !== BASIC) return json(res, 401, { error: 'unauthorized' });
      const path = new URL(seen.path, 'http://x').pathname;
      switch (path) {
        case '/api/echo':
          return json(res, 200, { ok: true });
        case '/api/small':
          return json(res, 200, { small: 'x'.repeat(200) });
        case '/api/big': {
          // Chunked, in uneven pieces: text() must join them, and split UTF-8 sequences, intact.
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          const bytes = Buffer.from(big, 'utf8');
          for (let at = 0; at < bytes.length; at += 65_521) res.write(bytes.subarray(at, at + 65_521));
          return res.end();
        }
        case '/api/headers':
          return json(res, 200, {}, { 'X-Multi': ['first', 'second'], 'X-Request-Id': 'abc-123' });
        case '/api/form':
          return json(res, 200, { contentType: req.headers['content-type'] ?? null, body: seen.body });
        case '/api/moved':
          res.writeHead(302, { location: '/api/echo?from=moved', 'content-length': 0 });
          return res.end();
        case '/api/away':
          res.writeHead(302, { location: `${other.url}/landing`, 'content-length': 0 });
          return res.end();
        default:
          return json(res, 404, { error: 'not found' });
      }
    });
  });
  afterAll(async () => {
    await api?.stop();
    await other?.stop();
  });

  const source = async () => (await open(basicConfiguration(`${api.url}/api`))).source;

  it('text() returns a large (> 2 MB) chunked JSON body whole', async () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(2 * 1024 * 1024);
    const reply = await (await source()).request('big');
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(text.length).toBe(big.length);
    expect(text).toBe(big);
    expect((JSON.parse(text) as { items: unknown[] }).items).toHaveLength(30_000);
  });

  it('eachChunk() hands over the same large chunked body, in order, as chunks (what the paging client reads)', async () => {
    const reply = await (await source()).request('big');
    const chunks: Buffer[] = [];
    await reply.eachChunk((chunk) => chunks.push(Buffer.from(chunk)));
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(big);
    // The connection went back to the pool: the next request works.
    expect((await (await source()).request('echo')).status).toBe(200);
  });

  it('headers.get() is case-insensitive, joins repeated headers, and gives null for a missing one', async () => {
    const reply = await (await source()).request('headers');
    expect(reply.headers.get('Content-Type')).toBe('application/json');
    expect(reply.headers.get('CONTENT-TYPE')).toBe('application/json');
    expect(reply.headers.get('x-request-id')).toBe('abc-123');
    expect(reply.headers.get('X-Multi')).toBe('first, second');
    expect(reply.headers.get('x-absent')).toBeNull();
    await reply.discard();
  });

  /** Lets undici mark the connection idle: it does so a tick after the body's end (see bench/credentials/mtls-handshakes.ts). */
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('reuses ONE TCP connection for many sequential requests whose bodies are read', async () => {
    const s = await source();
    const before = api.connections;
    for (let i = 0; i < 40; i++) {
      const reply = await s.request(i % 2 ? 'echo' : 'small');
      expect(reply.status).toBe(200);
      expect(JSON.parse(await reply.text())).toBeTypeOf('object');
      await tick();
    }
    expect(api.connections - before).toBe(1);
  });

  it('back to back (no tick between requests), the connections stop growing after the second', async () => {
    // undici hands the request that follows a connection's first body to a second connection (the
    // first is marked idle a tick later); from then on the two are reused, never a third.
    const s = await source();
    const before = api.connections;
    const counts: number[] = [];
    for (let i = 0; i < 40; i++) {
      const reply = await s.request('small');
      await reply.text();
      counts.push(api.connections - before);
    }
    expect(counts[0]).toBe(1);
    expect(counts.at(-1)).toBeLessThanOrEqual(2);
    expect(counts.at(-1)).toBe(counts[1]);
  });

  it('discard() on a small body keeps the connection for the next request', async () => {
    const s = await source();
    const before = api.connections;
    const requestsBefore = api.requests.length;
    for (let i = 0; i < 20; i++) {
      const reply = await s.request('small');
      expect(reply.status).toBe(200);
      await reply.discard();
      await tick();
    }
    const last = await s.request('echo');
    expect(JSON.parse(await last.text())).toEqual({ ok: true });
    expect(api.requests.length - requestsBefore).toBe(21);
    expect(api.connections - before).toBe(1);
  });

  it('follows a same-origin 302 with the Authorization header kept', async () => {
    const s = await source();
    api.requests.length = 0;
    const reply = await s.request('moved');
    expect(reply.status).toBe(200);
    expect(JSON.parse(await reply.text())).toEqual({ ok: true });
    expect(api.requests.map((r) => r.path)).toEqual(['/api/moved', '/api/echo?from=moved']);
    expect(api.requests[1]!.headers.authorization).toBe(BASIC);
    expect(api.requests[1]!.headers.accept).toBe('application/json');
  });

  it('follows a 302 to another origin WITHOUT the Authorization header', async () => {
    const s = await source();
    api.requests.length = 0;
    other.requests.length = 0;
    const reply = await s.request('away');
    expect(reply.status).toBe(200);
    expect(JSON.parse(await reply.text())).toEqual({ landed: true });
    expect(api.requests.map((r) => r.path)).toEqual(['/api/away']);
    expect(api.requests[0]!.headers.authorization).toBe(BASIC);
    expect(other.requests.map((r) => r.path)).toEqual(['/landing']);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(other.requests[0]!.headers)).not.toContain(PASSWORD);
    expect(JSON.stringify(other.requests[0]!.headers)).not.toContain(BASIC.slice('Basic '.length));
  });

  it("returns the 302 itself with redirect: 'manual'", async () => {
    const s = await source();
    api.requests.length = 0;
    const reply = await s.request('moved', { redirect: 'manual' });
    expect(reply.status).toBe(302);
    expect(reply.headers.get('Location')).toBe('/api/echo?from=moved');
    await reply.discard();
    const away = await s.request('away', { redirect: 'manual' });
    expect(away.status).toBe(302);
    await away.discard();
    expect(api.requests.map((r) => r.path)).toEqual(['/api/moved', '/api/away']);
  });

  // Fails today: HttpClient.request() turns a URLSearchParams body into a string but, unlike fetch(),
  // sends no content-type, so a server cannot tell it is a form (src/network/http-client.ts, request()).
  it('sends a URLSearchParams body as a form, with the content type fetch() gives it', async () => {
    const s = await source();
    const form = () => new URLSearchParams({ name: 'a b', value: 'ü&=' });
    const viaFetch = (await (await s.fetch('form', { method: 'POST', body: form() })).json()) as {
      contentType: string;
      body: string;
    };
    const reply = await s.request('form', { method: 'POST', body: form() });
    const viaRequest = JSON.parse(await reply.text()) as { contentType: string | null; body: string };
    expect(viaRequest.body).toBe('name=a+b&value=%C3%BC%26%3D');
    expect(viaFetch.body).toBe(viaRequest.body);
    expect(viaFetch.contentType).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(viaRequest.contentType).toBe(viaFetch.contentType);
  });
});

describe('request() with a refreshable credential (oauth2_client_credentials)', () => {
  let server: Peer;
  let issued = 0;
  /** 'first-token': only the first token issued is refused; 'always': every token is. */
  let reject: 'first-token' | 'always' = 'first-token';
  const tokenRequests = () => server.requests.filter((r) => r.path === '/token');
  const apiRequests = () => server.requests.filter((r) => r.path.startsWith('/api/'));

  beforeAll(async () => {
    server = await serve((_req, res, seen) => {
      if (seen.path === '/token') {
        if (
          seen.method !== 'POST' ||
          seen.headers.authorization !== `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`
        )
          return json(res, 401, { error: 'invalid_client' });
        issued++;
        return json(res, 200, { access_token: `access-token-${issued}-Kx9`, token_type: 'Bearer', expires_in: 3600 });
      }
      const refused =
        reject === 'always' ||
        seen.headers.authorization === 'Bearer access-token-1-Kx9' ||
        seen.headers.authorization === undefined;
      if (refused)
        return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      return json(res, 200, { ok: true, token: seen.headers.authorization });
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * A fake clock: the token cache keeps a token fetched less than 2 s ago on a 401 (the 401 was
   * probably for its predecessor), so the clock moves past that before the refused request.
   */
  async function connected() {
    server.requests.length = 0;
    issued = 0;
    let clock = Date.now();
    const auth = await open(
      {
        auth_method: 'oauth2_client_credentials',
        token_url: `${server.url}/token`,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        base_url: `${server.url}/api`,
      },
      { now: () => clock },
    );
    await auth.credential.prepare!();
    expect(tokenRequests()).toHaveLength(1);
    clock += 10_000;
    return auth;
  }

  it('fetches a new token after a 401 and retries once; the caller gets the 200', async () => {
    reject = 'first-token';
    const { source } = await connected();
    const reply = await source.request('records');
    expect(reply.status).toBe(200);
    expect(JSON.parse(await reply.text())).toEqual({ ok: true, token: 'Bearer access-token-2-Kx9' });
    expect(tokenRequests()).toHaveLength(2);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual([
      'Bearer access-token-1-Kx9',
      'Bearer access-token-2-Kx9',
    ]);

    // The new token is kept: the next request needs no token request and no retry.
    const next = await source.request('records');
    expect(next.status).toBe(200);
    await next.discard();
    expect(tokenRequests()).toHaveLength(2);
    expect(apiRequests()).toHaveLength(3);
  });

  it('returns the 401 after exactly one retry when every token is refused', async () => {
    reject = 'always';
    const { source } = await connected();
    const reply = await source.request('records');
    expect(reply.status).toBe(401);
    expect(reply.headers.get('WWW-Authenticate')).toBe('Bearer error="invalid_token"');
    expect(JSON.parse(await reply.text())).toEqual({ error: 'invalid_token' });
    expect(tokenRequests()).toHaveLength(2);
    expect(apiRequests()).toHaveLength(2);
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual([
      'Bearer access-token-1-Kx9',
      'Bearer access-token-2-Kx9',
    ]);
  });

  it('a 401 from another origin is not retried and gets no token', async () => {
    reject = 'always';
    const { source } = await connected();
    const elsewhere = await serve((_req, res, seen) =>
      json(res, 401, { authorization: seen.headers.authorization ?? null }),
    );
    try {
      const reply = await source.request(`${elsewhere.url}/x`);
      expect(reply.status).toBe(401);
      expect(JSON.parse(await reply.text())).toEqual({ authorization: null });
      expect(elsewhere.requests).toHaveLength(1);
      expect(tokenRequests()).toHaveLength(1);
    } finally {
      await elsewhere.stop();
    }
  });
});

const STALLED_BODY_START = '{"items":[';

describe('request() failures', () => {
  it('nothing listening: SourceUnreachableError, exit 4, naming the host and base_url', async () => {
    const port = await closedPort();
    const { source } = await open(basicConfiguration(`http://127.0.0.1:${port}/api`));
    const error = await rejection(source.request('items'));
    expect(error).toBeInstanceOf(SourceUnreachableError);
    expect(error.exitCode).toBe(4);
    expect(error.key).toBe('base_url');
    expect(error.code).toBe('econnrefused');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('connection refused');
    expect(error.message).toContain("basic auth as 'alice'");
    expectNoSecret(error);
  });

  /** Sends the headers and the first bytes of a body, then nothing more. */
  const stallingPeer = () =>
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(STALLED_BODY_START);
    });

  it('a body that stalls beyond timeout_seconds: text() rejects with code timeout', async () => {
    const stalling = await stallingPeer();
    try {
      const { source } = await open(basicConfiguration(`${stalling.url}/api`, { timeout_seconds: '1' }));
      const started = Date.now();
      const reply = await source.request('items');
      expect(reply.status).toBe(200);
      const error = await rejection(reply.text());
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('timeout');
      expect(error.key).toBe('timeout_seconds');
      expect(error.message).toContain(`${stalling.host}/api/items`);
      expect(error.message).toContain('timed out after 1s');
      // It waited for the deadline (a loaded machine makes the wait longer, never shorter).
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expectNoSecret(error);
    } finally {
      await stalling.stop();
    }
  });

  it('a body that stalls beyond timeout_seconds: eachChunk() rejects with code timeout too', async () => {
    const stalling = await stallingPeer();
    try {
      const { source } = await open(basicConfiguration(`${stalling.url}/api`, { timeout_seconds: '1' }));
      const reply = await source.request('items');
      let received = 0;
      const error = await rejection(reply.eachChunk((chunk) => (received += chunk.length)));
      expect(received).toBe(STALLED_BODY_START.length);
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.code).toBe('timeout');
      expect(error.key).toBe('timeout_seconds');
      expectNoSecret(error);
    } finally {
      await stalling.stop();
    }
  });

  it('a connection cut mid-body: eachChunk() rejects with a classified error (exit 4), not a raw one', async () => {
    const cutting = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100_000 });
      res.write('{"items":[', () => res.socket?.destroy());
    });
    try {
      const { source } = await open(basicConfiguration(`${cutting.url}/api`));
      const reply = await source.request('items');
      const error = await rejection(reply.eachChunk(() => undefined));
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.exitCode).toBe(4);
      expect(error.message).toContain(`${cutting.host}/api/items`);
      expectNoSecret(error);
    } finally {
      await cutting.stop();
    }
  });

  it('headers that arrive after timeout_seconds: request() rejects with code timeout (client secret not shown)', async () => {
    const slow = await serve((_req, res, seen) => {
      if (seen.path === '/token')
        return json(res, 200, { access_token: 'slow-token-Pq7', token_type: 'Bearer', expires_in: 3600 });
      later(1800, () => json(res, 200, { late: true }));
    });
    try {
      const { source } = await open({
        auth_method: 'oauth2_client_credentials',
        token_url: `${slow.url}/token`,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        base_url: `${slow.url}/api`,
        timeout_seconds: '1',
      });
      // The answer comes at 1.8 s: a rejection at all means the 1 s deadline cut the wait.
      const error = await rejection(source.request('items'));
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('timeout');
      expect(error.key).toBe('timeout_seconds');
      expect(error.message).toContain(`${slow.host}/api/items`);
      expect(error.message).toContain(`client '${CLIENT_ID}'`);
      expectNoSecret(error);
      expect(error.message).not.toContain('slow-token-Pq7');
    } finally {
      await slow.stop();
    }
  });

  it('a trusted certificate for another host name: exit 5 naming base_url and the names the certificate lists', async () => {
    const ca = createCa();
    const certificate = issueServer(ca, { hosts: ['db.example.test'] });
    const secure = await serve((_req, res) => json(res, 200, {}), {
      key: certificate.privateKeyPem,
      cert: certificate.certificatePem,
    });
    try {
      const source = (await open(basicConfiguration(`${secure.url}/api`, { tls_ca_certificate: ca.certificatePem })))
        .source;
      for (const call of [() => source.request('items'), () => source.fetch('items')]) {
        const error = await rejection(call());
        expect(error.exitCode).toBe(5);
        expect(error.code).toBe('tls_host_mismatch');
        expect(error.key).toBe('base_url');
        expect(error.message).toContain("not valid for host '127.0.0.1'");
        expect(error.message).toContain('names db.example.test');
        // The hint every source gives a certificate for another host, naming the key that holds it.
        expect(error.hint).toBe(
          "use in 'base_url' a host name the certificate lists, or get a certificate that names '127.0.0.1'",
        );
        expectNoSecret(error);
      }
      expect(secure.requests).toHaveLength(0);
    } finally {
      await Promise.all(opened.splice(0).map((a) => a.close()));
      await secure.stop();
    }
  });

  it('an untrusted TLS certificate: SourceIdentityError, exit 5; trusted once tls_ca_certificate names the CA', async () => {
    const ca = createCa();
    const certificate = issueServer(ca);
    const secure = await serve(
      (_req, res, seen) => json(res, 200, { authorization: seen.headers.authorization === BASIC }),
      {
        key: certificate.privateKeyPem,
        cert: certificate.certificatePem,
      },
    );
    try {
      const untrusting = await open(basicConfiguration(`${secure.url}/api`));
      const error = await rejection(untrusting.source.request('items'));
      expect(error).toBeInstanceOf(SourceIdentityError);
      expect(error.exitCode).toBe(5);
      expect(error.code).toBe('tls_untrusted');
      expect(error.key).toBe('tls_ca_certificate');
      expect(error.message).toContain(secure.host);
      expectNoSecret(error);
      expect(secure.requests).toHaveLength(0);

      const trusting = await open(basicConfiguration(`${secure.url}/api`, { tls_ca_certificate: ca.certificatePem }));
      const reply = await trusting.source.request('items');
      expect(reply.status).toBe(200);
      expect(JSON.parse(await reply.text())).toEqual({ authorization: true });
    } finally {
      await Promise.all(opened.splice(0).map((a) => a.close()));
      await secure.stop();
    }
  });
});

describe('redirects: the credential stays on base_url origin, whatever header carries it', () => {
  const KEY = 'api-key-Xq93-secret';
  let api: Peer;
  let other: Peer;
  beforeAll(async () => {
    other = await serve((_req, res) => json(res, 200, { landed: true }));
    api = await serve((req, res, seen) => {
      if (seen.headers['x-api-key'] !== KEY) return json(res, 401, { error: 'unauthorized' });
      const path = new URL(seen.path, 'http://x').pathname;
      if (path === '/api/away') {
        res.writeHead(302, { location: `${other.url}/landing`, 'content-length': 0 });
        return res.end();
      }
      if (path === '/api/submit') {
        res.writeHead(303, { location: '/api/result', 'content-length': 0 });
        return res.end();
      }
      if (path === '/api/result')
        return json(res, 200, { method: seen.method, body: seen.body, type: seen.headers['content-type'] ?? null });
      if (path === '/api/loop') {
        res.writeHead(307, { location: '/api/loop', 'content-length': 0 });
        return res.end();
      }
      json(res, 404, { error: 'not found' });
    });
  });
  afterAll(async () => {
    await Promise.all([api.stop(), other.stop()]);
  });
  const keyed = () => open({ auth_method: 'api_key', api_key: KEY, base_url: `${api.url}/api/` });

  it('an API key header is not sent to the origin a 302 leads to, by fetch() or request()', async () => {
    const { source } = await keyed();
    other.requests.length = 0;
    const fetched = await source.fetch('away');
    expect(await fetched.json()).toEqual({ landed: true });
    const requested = await source.request('away');
    expect(JSON.parse(await requested.text())).toEqual({ landed: true });
    expect(other.requests).toHaveLength(2);
    for (const seen of other.requests) {
      expect(seen.headers['x-api-key']).toBeUndefined();
      expect(JSON.stringify(seen.headers)).not.toContain(KEY);
    }
  });

  it('a 303 after a POST goes on as a GET without the body or its content type, with the credential on the same origin', async () => {
    const { source } = await keyed();
    const reply = await source.request('submit', {
      method: 'POST',
      body: JSON.stringify({ a: 1 }),
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(await reply.text())).toEqual({ method: 'GET', body: '', type: null });
  });

  it('a redirect loop stops after 20 hops: exit 4 naming base_url', async () => {
    const { source } = await keyed();
    const before = api.requests.length;
    const error = await rejection(source.request('loop'));
    expect([error.exitCode, error.code, error.key]).toEqual([4, 'too_many_redirects', 'base_url']);
    expect(api.requests.length - before).toBe(21);
  });

  it("the caller's own Authorization and Cookie do not follow a redirect to another origin either", async () => {
    const { source } = await keyed();
    other.requests.length = 0;
    const reply = await source.request('away', {
      headers: { authorization: 'Bearer callers-own-token', cookie: 'session=callers-cookie' },
    });
    expect(JSON.parse(await reply.text())).toEqual({ landed: true });
    expect(other.requests).toHaveLength(1);
    expect([other.requests[0]!.headers.authorization, other.requests[0]!.headers.cookie]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('a path with a colon or a leading backslash stays on base_url origin, under it', async () => {
    const { resolveUrl } = await import('../../src/sources/rest/index.js');
    const base = new URL('https://sheets.example/v4/spreadsheets/ID/');
    expect(resolveUrl(base, 'values:batchGet').href).toBe('https://sheets.example/v4/spreadsheets/ID/values:batchGet');
    expect(resolveUrl(base, '\\\\evil.example/x').origin).toBe('https://sheets.example');
    expect(resolveUrl(base, 'http:/evil.example/x').origin).toBe('https://sheets.example');
  });
});
