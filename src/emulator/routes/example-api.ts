import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerMatches } from './auth-check.js';
import { sendJson } from './http-reply.js';

/**
 * An example REST API beside the specification's interfaces, so that the `rest-api` template has a
 * server to run against out of the box (its configuration.local.json). Not part of either interface,
 * and it changes none of their routes: it lives under its own prefix.
 *
 *   GET {url}/example-api/v1/health                       200 {"status":"ok"}   (the probe)
 *   GET {url}/example-api/v1/items[?cursor=C][&limit=N]   200 {"items":[…],"next_cursor":"…"}
 *
 * Bearer token required on both (401 with `WWW-Authenticate: Bearer` otherwise). Items are a fixed
 * catalogue of EXAMPLE_ITEM_COUNT products, `{id, name, price, in_stock, updated_at}`, in id order;
 * pages of `limit` (1..100, default 100) follow `next_cursor`, absent on the last page, which is the
 * shape the template's connector reads.
 */
export const EXAMPLE_API_PATH = '/example-api/v1';
export const EXAMPLE_ITEM_COUNT = 230;
const DEFAULT_LIMIT = 100;

const NAMES = ['anchor', 'beacon', 'compass', 'drift', 'ember', 'fathom', 'gale', 'harbor', 'isle', 'jetty'];

function item(id: number) {
  return {
    id,
    name: `${NAMES[id % NAMES.length]} ${Math.ceil(id / NAMES.length)}`,
    price: Math.round(((id * 37) % 1000) + 99) / 100,
    in_stock: id % 7 !== 0,
    updated_at: new Date(Date.UTC(2024, 4, 1) + id * 3_600_000).toISOString(),
  };
}

export function handleExampleApi(req: IncomingMessage, res: ServerResponse, url: URL, token: string): void {
  req.resume();
  if (!bearerMatches(req.headers.authorization, token)) {
    return sendJson(
      res,
      401,
      { error: 'unauthorized', message: 'a valid Bearer token is required' },
      { 'www-authenticate': 'Bearer realm="example-api"' },
    );
  }
  if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
  const leaf = url.pathname.slice(EXAMPLE_API_PATH.length);
  if (leaf === '/health') return sendJson(res, 200, { status: 'ok' });
  if (leaf !== '/items') return sendJson(res, 404, { error: 'not_found', message: `no endpoint ${url.pathname}` });

  const limitText = url.searchParams.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > DEFAULT_LIMIT)
    return sendJson(res, 400, { error: 'invalid_limit', message: 'limit must be 1 to 100' });
  const cursor = url.searchParams.get('cursor');
  const after = cursor === null ? 0 : decodeCursor(cursor);
  if (after === undefined)
    return sendJson(res, 400, { error: 'invalid_cursor', message: 'cursor was not issued by this API' });
  const last = Math.min(after + limit, EXAMPLE_ITEM_COUNT);
  const items = [];
  for (let id = after + 1; id <= last; id++) items.push(item(id));
  sendJson(res, 200, { items, ...(last < EXAMPLE_ITEM_COUNT ? { next_cursor: encodeCursor(last) } : {}) });
}

/** Opaque to clients: the last id of the page, base64url. */
function encodeCursor(lastId: number): string {
  return Buffer.from(`after:${lastId}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const match = /^after:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[1]) : NaN;
  return Number.isInteger(id) && id >= 0 && id <= EXAMPLE_ITEM_COUNT ? id : undefined;
}
