/**
 * What the benchmarks of whole `connector-auth` processes on a scaffolded rest-api template share
 * (bench/start/debug-template.ts, bench/start/image-warm-start.ts): a local API serving the template's items
 * behind a bearer token, and the wall time of one process from spawn to exit.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));
export const TOKEN = 'bench-token-8d1f0c2a';

/** The API: `/health` and `/items` (`rows` items in one page) for `Bearer TOKEN`, else 401. */
export async function serveItems(rows: number): Promise<{ server: Server; url: string }> {
  const items = Array.from({ length: rows }, (_, i) => ({
    id: i + 1,
    name: `item ${i + 1}`,
    price: (i + 1) * 1.25,
    active: i % 2 === 0,
  }));
  const page = JSON.stringify({ items });
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://api').pathname;
    res.writeHead(path === '/health' || path === '/items' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(path === '/health' ? '{"ok":true}' : path === '/items' ? page : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Wall time of one process, from spawn to exit (the API is served by this process meanwhile). */
export function timed(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0)
        reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      else resolve(performance.now() - started);
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const round1 = (value: number): number => Math.round(value * 10) / 10;
