import { SourceUnreachableError, type ConnectorAuthError } from '../../errors/index.js';
import {
  BodyBuffers,
  describeRequest,
  parseJsonBody,
  validate,
  type JsonBody,
  type TransportResponse,
} from '../transport/index.js';
import { guessNextCursorOf } from './next-cursor-guess.js';
import type { RequestSubject } from './pipeline-status-error.js';
import { pageEnvelopeSchema } from './pipeline-records.js';

/** One page's request: its path and query, and what it is about (for a 404's message). */
export interface PageQuery {
  path: string;
  query: Record<string, string | number | undefined>;
  subject: RequestSubject;
}

/** A page's envelope read, its items not yet validated. */
export interface RawPage {
  items: unknown[];
  nextCursor: string | undefined;
  target: string;
}

interface PageBody {
  body: JsonBody;
  target: string;
}

/** What a PageFetcher asks of its client: a GET (retried), and the error a status other than 200 is. */
export interface PageSource {
  get(path: string): Promise<TransportResponse>;
  statusError(response: TransportResponse, target: string, subject: RequestSubject): Promise<ConnectorAuthError>;
}

/**
 * Reads the pages of a listing: one page, or all of them with page n+1 requested while page n is
 * parsed. A page's body is read whole but not parsed, as bytes in a reused buffer when the
 * transport streams (the REST source does), else as text; its buffer goes back to the pool once
 * its envelope is read.
 */
export class PageFetcher {
  readonly #source: PageSource;
  /** Page bodies are read into these and parsed from them; see body-buffers.ts. */
  readonly #buffers = new BodyBuffers();

  constructor(source: PageSource) {
    this.#source = source;
  }

  /** Sends one page request and reads its envelope; the items are validated by the caller. */
  async page(query: PageQuery): Promise<RawPage> {
    return this.#parse(await this.#fetchBody(query));
  }

  /**
   * All pages, each validated whole by `validated`, as a stream of arrays (recordsOf hands out their
   * records one by one). Page n+1 is requested as soon as page n's body has arrived, with the
   * cursor read from the body's end (next-cursor-guess.ts), so the service prepares it while page n
   * is parsed, validated and handed out. When the parsed `next_cursor` differs from the guess, the
   * prefetched page is dropped and the right one requested. At most two pages are held, whatever the total.
   */
  async *pages<T>(
    queryFor: (cursor: string | undefined) => PageQuery,
    validated: (page: RawPage) => T[],
  ): AsyncGenerator<T[], void, undefined> {
    let cursor: string | undefined;
    let pending: Promise<PageBody> | undefined = this.#fetchBody(queryFor(undefined));
    try {
      while (pending) {
        const fetched: PageBody = await pending;
        pending = undefined;
        const guess = guessNextCursorOf(fetched.body);
        // A guess equal to the cursor just used would be the loop refused below: not prefetched.
        if (guess !== undefined && guess !== cursor) {
          pending = this.#prefetch(queryFor(guess));
          // Parsing and handing out a page is all one macrotask, and the HTTP client hands a request
          // its kept-alive connection asynchronously. Two turns here put the request on the wire
          // before the page is parsed; without them it would leave after the whole page.
          await nextTurn();
          await nextTurn();
        }
        const page = this.#parse(fetched);
        if (page.nextCursor !== undefined) {
          // A service that hands back the cursor it was given would page forever.
          if (page.nextCursor === cursor)
            throw new SourceUnreachableError(
              `${page.target} returned the cursor it was given as next_cursor; stopping instead of paging forever`,
              {
                code: 'cursor_loop',
              },
            );
          cursor = page.nextCursor;
        }
        // A wrong guess (a page pending here was prefetched for `guess`): it is of no use. It is left
        // to finish on its own (its body is read, its failure ignored) rather than waited for, which
        // could mean its retries.
        if (pending && guess !== page.nextCursor) {
          pending.then(
            (dropped) => release(dropped.body),
            () => undefined,
          );
          pending = undefined;
        }
        if (!pending && page.nextCursor !== undefined) pending = this.#prefetch(queryFor(page.nextCursor));
        // The whole page is checked before its first record is handed out: a caller never gets
        // half a page that then fails (and one tight loop is faster than checks between yields).
        yield validated(page);
      }
    } finally {
      // A caller that stops early leaves at most one prefetched page; let it finish quietly.
      await pending?.then(
        (unused) => release(unused.body),
        () => undefined,
      );
    }
  }

  /** One page request, its status checked and its body read whole but not parsed. */
  async #fetchBody(page: PageQuery): Promise<PageBody> {
    const response = await this.#source.get(withQuery(page.path, page.query));
    const target = describeRequest('GET', response, page.path);
    if (response.status !== 200) throw await this.#source.statusError(response, target, page.subject);
    const body = response.eachChunk
      ? await this.#buffers.read(
          (onChunk) => response.eachChunk!(onChunk),
          Number(response.headers.get('content-length')),
        )
      : await response.text();
    return { body, target };
  }

  /** The envelope of a page; its buffer goes back to the pool whatever happens. */
  #parse({ body, target }: PageBody): RawPage {
    try {
      // Only a 200's body is read as a page (#fetchBody throws for any other status).
      const envelope = validate(pageEnvelopeSchema, parseJsonBody(body, 200, target), target, 'body');
      const next = envelope.data.next_cursor;
      return {
        items: envelope.data.items,
        nextCursor: typeof next === 'string' && next.length > 0 ? next : undefined,
        target,
      };
    } finally {
      release(body);
    }
  }

  /** A page requested ahead of its turn; awaited later, so its failure must not count as unhandled until then. */
  #prefetch(page: PageQuery): Promise<PageBody> {
    const pending = this.#fetchBody(page);
    pending.catch(() => undefined);
    return pending;
  }
}

function release(body: JsonBody): void {
  if (typeof body !== 'string') body.release();
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
