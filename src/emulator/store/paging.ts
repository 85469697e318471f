import { encodeCursor, decodeCursor } from './cursor-codec.js';
import type { SortedIndex } from './sorted-index.js';

/** Section 4.7: limit 1..1000, default 100; cursor opaque; `next_cursor` absent when nothing remains. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

/**
 * `look-ahead` (default) gives `next_cursor` only when a record follows the page. `full-page` gives
 * one whenever the page is full, as services that do not look ahead do; the client then meets the
 * empty last page section 4.7 rule 4 allows.
 */
export type PagingStyle = 'look-ahead' | 'full-page';

export type PageQuery = { ok: true; limit: number; after: string | undefined } | { ok: false; message: string };

/** Reads `limit` and `cursor` from the query; any bad value is refused, never clamped. */
export function readPageQuery(query: URLSearchParams, scope: string): PageQuery {
  const limits = query.getAll('limit');
  let limit = DEFAULT_PAGE_LIMIT;
  if (limits.length > 1) return { ok: false, message: "Invalid 'limit': give it once" };
  if (limits.length === 1) {
    const text = limits[0]!;
    if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > MAX_PAGE_LIMIT)
      return { ok: false, message: `Invalid 'limit': must be an integer from 1 to ${MAX_PAGE_LIMIT}` };
    limit = Number(text);
  }
  const cursor = query.get('cursor');
  if (cursor === null || cursor === '') return { ok: true, limit, after: undefined };
  const position = decodeCursor(cursor, scope);
  if (!position) return { ok: false, message: "Invalid 'cursor': not a cursor this endpoint issued" };
  return { ok: true, limit, after: position.after };
}

export interface PageOf<V> {
  values: V[];
  nextCursor: string | undefined;
}

export function takePage<V>(
  index: SortedIndex<V>,
  scope: string,
  after: string | undefined,
  limit: number,
  style: PagingStyle,
): PageOf<V> {
  const { values, lastKey, more } = index.page(after, limit);
  const hasNext = lastKey !== undefined && (style === 'full-page' ? values.length === limit : more);
  return { values, nextCursor: hasNext ? encodeCursor({ scope, after: lastKey }) : undefined };
}
