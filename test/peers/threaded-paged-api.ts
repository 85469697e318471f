import { Worker } from 'node:worker_threads';

/**
 * A paged JSON API in the pipeline interface's envelope, served from a worker thread: it has an event
 * loop of its own, so it accepts and answers requests while the test's main thread is busy (a
 * consumer working synchronously through a page). Each request's arrival time is recorded on the
 * clock the main thread reads (`performance.timeOrigin + performance.now()`).
 *
 * `layout: 'cursor-last'` ends each page with `"next_cursor":"…"}}` as the real service does;
 * `'decoy'` puts the real cursor first and ends the body with another object's `next_cursor`, so a
 * client that reads the cursor from the body's end guesses wrong.
 */

export interface PagedApiOptions {
  pages: number;
  perPage: number;
  layout: 'cursor-last' | 'decoy';
  username: string;
  password: string;
}

export interface PagedApiRequest {
  cursor: string | null;
  /** Milliseconds on the shared clock. */
  arrivedAt: number;
  status: number;
}

export interface PagedApiPeer {
  url: string;
  requests(): Promise<PagedApiRequest[]>;
  stop(): Promise<void>;
}

const SERVER = `
const { createServer } = require('node:http');
const { parentPort, workerData: o } = require('node:worker_threads');
const log = [];
const now = () => performance.timeOrigin + performance.now();
const record = (i) => ({
  id: 'conn_' + String(i).padStart(4, '0'), group_id: 'grp', service: 'postgres', schema: 'schema_' + i, paused: false,
  status: { setup_state: 'connected', sync_state: 'scheduled', update_state: 'on_schedule' },
  sync_frequency: 360, created_at: '2024-01-01T00:00:00.000Z',
});
const expected = 'Basic ' + Buffer.from(o.username + ':' + o.password).toString('base64');
const server = createServer((req, res) => {
  const arrivedAt = now();
  const url = new URL(req.url, 'http://peer');
  const cursor = url.searchParams.get('cursor');
  const answer = (status, text) => {
    log.push({ cursor, arrivedAt, status });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };
  if (req.headers.authorization !== expected) return answer(401, '{"code":"AuthFailed","message":"no"}');
  const page = cursor === null ? 0 : /^p\\d+$/.test(cursor) ? Number(cursor.slice(1)) : -1;
  if (page < 0 || page >= o.pages) return answer(400, JSON.stringify({ code: 'InvalidInput', message: "Invalid 'cursor'" }));
  const items = Array.from({ length: o.perPage }, (_, i) => record(page * o.perPage + i));
  const next = page + 1 < o.pages ? 'p' + (page + 1) : undefined;
  const body = o.layout === 'decoy'
    ? { code: 'Success', data: { ...(next ? { next_cursor: next } : {}), items }, meta: { next_cursor: 'decoy' + page } }
    : { code: 'Success', data: { items, ...(next ? { next_cursor: next } : {}) } };
  answer(200, JSON.stringify(body));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'log') parentPort.postMessage({ log });
  if (m === 'stop') server.close(() => parentPort.postMessage({ stopped: true }));
});
`;

export async function start(options: PagedApiOptions): Promise<PagedApiPeer> {
  const worker = new Worker(SERVER, { eval: true, workerData: options });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (key in m) {
          worker.off('message', onMessage);
          resolve(m[key] as T);
        }
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const port = await next<number>('port');
  return {
    url: `http://127.0.0.1:${port}`,
    async requests() {
      const log = next<PagedApiRequest[]>('log');
      worker.postMessage('log');
      return log;
    },
    async stop() {
      const stopped = next('stopped');
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}
