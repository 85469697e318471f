import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeaderList, HttpClient } from '../../src/network/index.js';
import { rejection } from '../helpers/rejection.js';

/**
 * The HTTP client on Node's own http client, against real servers on loopback: what send() owes a
 * caller that expects fetch (content codings undone, redirects followed by fetch's rules), and a
 * kept-alive connection the server dropped as it was reused (sent again once, when idempotent).
 */

const context = { credential: 'test credential', urlKey: 'base_url' };
const client = () => new HttpClient({ tls: { verify: true }, timeoutSeconds: 5 });

function listen(server: Server | TcpServer): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const seen: { origin: string; method: string; path: string; authorization?: string; body: string }[] = [];
let api: Server;
let other: Server;
let apiUrl: string;
let otherUrl: string;

function handler(origin: () => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({
        origin: origin(),
        method: req.method!,
        path: url.pathname,
        authorization: req.headers.authorization,
        body,
      });
      const text = JSON.stringify({ hello: 'world', path: url.pathname });
      const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
      if (url.pathname === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(text));
      else if (url.pathname === '/br') res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync(text));
      else if (url.pathname === '/to-other') res.writeHead(302, { location: `${otherUrl}/landing` }).end();
      else if (url.pathname === '/see-other') res.writeHead(303, { location: '/landing' }).end();
      else if (url.pathname === '/temporary') res.writeHead(307, { location: '/landing' }).end();
      else if (hop) res.writeHead(302, { location: `/hop/${Number(hop[1]) + 1}` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  };
}

beforeAll(async () => {
  api = createHttpServer(handler(() => 'api'));
  other = createHttpServer(handler(() => 'other'));
  apiUrl = await listen(api);
  otherUrl = await listen(other);
});
afterAll(async () => {
  await Promise.all([api, other].map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('send(): what fetch would give', () => {
  it('undoes gzip and br content codings', async () => {
    const http = client();
    for (const path of ['/gzip', '/br']) {
      const response = await http.send(new URL(path, apiUrl), {}, context);
      expect(await response.json()).toEqual({ hello: 'world', path });
    }
    await http.close();
  });

  it('follows a redirect to another origin without the Authorization header, and says where it landed', async () => {
    const http = client();
    seen.length = 0;
    const response = await http.send(
      new URL('/to-other', apiUrl),
      { headers: new HeaderList({ authorization: 'Bearer secret-token' }) },
      context,
    );
    expect(response.status).toBe(200);
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`${otherUrl}/landing`);
    expect(seen.map((r) => [r.origin, r.path, r.authorization])).toEqual([
      ['api', '/to-other', 'Bearer secret-token'],
      ['other', '/landing', undefined],
    ]);
    await http.close();
  });

  it('a 303 after a POST goes on as a GET without the body; a 307 keeps the method and the body', async () => {
    const http = client();
    seen.length = 0;
    await (await http.send(new URL('/see-other', apiUrl), { method: 'POST', body: 'a=1' }, context)).text();
    await (await http.send(new URL('/temporary', apiUrl), { method: 'POST', body: 'b=2' }, context)).text();
    expect(seen.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/see-other', 'a=1'],
      ['GET', '/landing', ''],
      ['POST', '/temporary', 'b=2'],
      ['POST', '/landing', 'b=2'],
    ]);
    await http.close();
  });

  it('redirect: manual answers with the 3xx itself', async () => {
    const http = client();
    const response = await http.send(new URL('/to-other', apiUrl), { redirect: 'manual' }, context);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${otherUrl}/landing`);
    await http.close();
  });

  it('more than 20 redirects: a classified failure (exit 4) naming the URL', async () => {
    const http = client();
    const failure = await rejection(http.send(new URL('/hop/0', apiUrl), {}, context));
    expect(failure.exitCode).toBe(4);
    expect(failure.message).toContain(`${apiUrl}/hop/0`);
    expect(failure.message).toContain('more than 20 redirects');
    await http.close();
  });
});

describe('a kept-alive connection the server dropped as it was reused', () => {
  /** Answers the first request of each connection, keeping it open; drops the connection at the second. */
  let server: TcpServer;
  let url: string;
  let connections = 0;
  beforeAll(async () => {
    server = createTcpServer((socket: Socket) => {
      connections++;
      let requests = 0;
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        while (buffered.includes('\r\n\r\n')) {
          const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          buffered = buffered.slice(head.length + 4 + length);
          if (++requests > 1) return void socket.destroy();
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: keep-alive\r\n\r\n{"ok":true}',
          );
        }
      });
      socket.on('error', () => undefined);
    });
    url = await listen(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('a GET is sent once more on a new connection, and answered', async () => {
    const http = client();
    const first = await http.request(new URL('/a', url), {}, context);
    expect(await first.text()).toBe('{"ok":true}');
    await new Promise((resolve) => setImmediate(resolve));
    const before = connections;
    const second = await http.request(new URL('/b', url), {}, context);
    expect(await second.text()).toBe('{"ok":true}');
    expect(connections - before).toBe(1);
    await http.close();
  });

  it('a POST is not sent twice: the failure is classified (exit 4), naming the URL', async () => {
    const http = client();
    await (await http.request(new URL('/a', url), { method: 'POST', body: 'x' }, context)).text();
    await new Promise((resolve) => setImmediate(resolve));
    const failure = await rejection(http.request(new URL('/b', url), { method: 'POST', body: 'y' }, context));
    expect(failure.exitCode).toBe(4);
    expect(failure.code).toBe('econnreset');
    expect(failure.message).toContain(`POST ${url}/b`);
    await http.close();
  });
});
