import type { z } from 'zod';
import { AuthenticationError, SourceUnreachableError, type ConnectorAuthError } from '../../errors/index.js';
import { secrets as processSecrets, type SecretRegistry } from '../../secrets/index.js';
import { InvalidRequestError, NotFoundError } from '../transport/client-errors.js';
import { BodyBuffers } from '../transport/body-buffers.js';
import { describeRequest, type HttpTransport, type TransportResponse } from '../transport/http-transport.js';
import { checkLimit } from './limit.js';
import {
  connectorSchema,
  groupSchema,
  pageEnvelopeSchema,
  pipelineErrorBodySchema,
  upgradeResultSchema,
  type Connector,
  type Group,
  type Page,
  type UpgradeResult,
} from './pipeline-records.js';
import { validateRecord } from './record-validator.js';
import { sendWithRetry, type RetryDecision, type RetryOptions } from '../transport/retry-policy.js';
import { guessNextCursorOf } from './next-cursor-guess.js';
import { recordsOf } from './page-records.js';
import { oneLine } from '../../network/index.js';
import { bodyField, parseJsonBody, readJsonBody, validate, type JsonBody } from '../transport/service-reply.js';

export interface PipelineClientOptions {
  /**
   * The path segment of a group's connectors: `connectors` as the specification writes it (default),
   * or `connections`, the real service's newer name.
   */
  collection?: 'connectors' | 'connections';
  retry?: RetryOptions;
  /** Where connect-card tokens are registered for redaction (default: the process-wide registry). */
  registry?: SecretRegistry;
  /** The key (configuration key or variable) to name when the service rejects the credentials (default `password`). */
  rejectedKey?: string;
  /** Called by close(): a client made by createPipelineClient owns its transport. */
  onClose?: () => Promise<void>;
}

export interface PageRequest {
  cursor?: string;
  /** 1..1000; the service's default (100) when absent. */
  limit?: number;
}

export interface ConnectorPageRequest extends PageRequest {
  /** Only the connector whose name (= destination schema) is this. */
  schema?: string;
}

/**
 * The pipeline management interface (specification section 4.1–4.3, 4.7): groups, the connectors of a
 * group, one page at a time or all pages as an async iterator, and the transformation package upgrade.
 *
 * It runs on any HttpTransport, so inside a connector `new PipelineClient(source)` reuses the REST
 * source's authenticated plumbing; `createPipelineClient()` builds one from a key and a secret.
 */
export class PipelineClient {
  readonly #transport: HttpTransport;
  readonly #collection: string;
  readonly #retry: RetryOptions;
  readonly #registry: SecretRegistry;
  readonly #rejectedKey: string;
  readonly #onClose: (() => Promise<void>) | undefined;
  /** Page bodies are read into these and parsed from them; see body-buffers.ts. */
  readonly #buffers = new BodyBuffers();

  constructor(transport: HttpTransport, options: PipelineClientOptions = {}) {
    this.#transport = transport;
    this.#collection = options.collection ?? 'connectors';
    this.#retry = options.retry ?? {};
    this.#registry = options.registry ?? processSecrets;
    this.#rejectedKey = options.rejectedKey ?? 'password';
    this.#onClose = options.onClose;
  }

  /** One page of groups (section 4.2). */
  async listGroups(request: PageRequest = {}): Promise<Page<Group>> {
    return this.#validated(await this.#fetchPage(this.#groupsQuery(request)), groupSchema);
  }

  /** Every group, following `next_cursor` until it is absent. */
  groups(request: Omit<PageRequest, 'cursor'> = {}): AsyncIterable<Group> {
    checkLimit(request.limit);
    return recordsOf(
      this.#pages((cursor) => this.#groupsQuery({ ...request, ...(cursor ? { cursor } : {}) }), groupSchema),
    );
  }

  /** One page of the connectors of a group (section 4.1). */
  async listConnectors(groupId: string, request: ConnectorPageRequest = {}): Promise<Page<Connector>> {
    return this.#validated(await this.#fetchPage(this.#connectorsQuery(groupId, request)), connectorSchema);
  }

  /** Every connector of a group, following `next_cursor` until it is absent. */
  connectors(groupId: string, request: Omit<ConnectorPageRequest, 'cursor'> = {}): AsyncIterable<Connector> {
    this.#connectorsQuery(groupId, request);
    return recordsOf(
      this.#pages(
        (cursor) => this.#connectorsQuery(groupId, { ...request, ...(cursor ? { cursor } : {}) }),
        connectorSchema,
      ),
    );
  }

  /**
   * Upgrades a packaged transformation to its latest version (section 4.3). Not retried on 5xx: the
   * upgrade may have happened before the error; only a 429 (the service did nothing) is retried.
   */
  async upgradeTransformation(transformationId: string): Promise<UpgradeResult> {
    checkIdentifier(transformationId, 'transformation_id');
    const path = `v1/transformations/${encodeURIComponent(transformationId)}/upgrade`;
    const response = await this.#send('POST', path, 'rate-limit-only');
    const target = describeRequest('POST', response, path);
    if (response.status !== 200)
      throw await this.#statusError(response, target, { resource: 'transformation package', id: transformationId });
    return validate(upgradeResultSchema, await readJsonBody(response, target), target, 'body');
  }

  async close(): Promise<void> {
    await this.#onClose?.();
  }

  #groupsQuery(request: PageRequest): PageQuery {
    const limit = checkLimit(request.limit);
    return { path: 'v1/groups', query: { cursor: request.cursor, limit }, subject: { resource: 'groups', id: '' } };
  }

  #connectorsQuery(groupId: string, request: ConnectorPageRequest): PageQuery {
    checkIdentifier(groupId, 'group_id');
    const limit = checkLimit(request.limit);
    return {
      path: `v1/groups/${encodeURIComponent(groupId)}/${this.#collection}`,
      query: { schema: request.schema, cursor: request.cursor, limit },
      subject: { resource: 'group', id: groupId },
    };
  }

  /** Sends one page request and reads its envelope; the items are validated by the caller. */
  async #fetchPage(page: PageQuery): Promise<RawPage> {
    return this.#parsePage(await this.#fetchPageBody(page));
  }

  /**
   * One page request, its status checked and its body read whole but not parsed: as bytes in a
   * reused buffer when the transport streams (the REST source does), else as text.
   */
  async #fetchPageBody(page: PageQuery): Promise<PageBody> {
    const response = await this.#send('GET', withQuery(page.path, page.query), 'always');
    const target = describeRequest('GET', response, page.path);
    if (response.status !== 200) throw await this.#statusError(response, target, page.subject);
    const body = response.eachChunk
      ? await this.#buffers.read(
          (onChunk) => response.eachChunk!(onChunk),
          Number(response.headers.get('content-length')),
        )
      : await response.text();
    return { body, target };
  }

  /** The envelope of a page; its buffer goes back to the pool whatever happens. */
  #parsePage({ body, target }: PageBody): RawPage {
    try {
      // Only a 200's body is read as a page (#fetchPageBody throws for any other status).
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

  #validated<S extends z.ZodType>(raw: RawPage, schema: S): Page<z.output<S>> {
    return {
      items: raw.items.map((item, index) => this.#item(schema, item, raw.target, index)),
      nextCursor: raw.nextCursor,
    };
  }

  #item<S extends z.ZodType>(schema: S, item: unknown, target: string, index: number): z.output<S> {
    const record = validateRecord(schema, item, target, `data.items[${index}]`);
    // Anyone holding a connect-card token can set the connector up: redact it wherever it goes.
    const token = (record as { connect_card?: { token?: unknown } }).connect_card?.token;
    if (typeof token === 'string' && token) this.#registry.register('connect_card.token', token);
    return record;
  }

  /**
   * All pages, each validated whole, as a stream of arrays (recordsOf hands out their records one by
   * one). Page n+1 is requested as soon as page n's body has arrived, with the
   * cursor read from the body's end (next-cursor-guess.ts), so the service prepares it while page n
   * is parsed, validated and handed out. When the parsed `next_cursor` differs from the guess, the
   * prefetched page is dropped and the right one requested. At most two pages are held, whatever the total.
   */
  async *#pages<S extends z.ZodType>(
    queryFor: (cursor: string | undefined) => PageQuery,
    schema: S,
  ): AsyncGenerator<z.output<S>[], void, undefined> {
    let cursor: string | undefined;
    let pending: Promise<PageBody> | undefined = this.#fetchPageBody(queryFor(undefined));
    try {
      while (pending) {
        const fetched: PageBody = await pending;
        pending = undefined;
        const guess = guessNextCursorOf(fetched.body);
        // A guess equal to the cursor just used would be the loop refused below: not prefetched.
        if (guess !== undefined && guess !== cursor) {
          pending = this.#prefetch(queryFor(guess));
          // Parsing and handing out a page is all one macrotask, and undici writes a request on a
          // reused connection only after a full turn of the event loop (it first checks the idle
          // socket for bytes the server sent unasked). Two turns here put the request on the wire
          // before the page is parsed; without them it would leave after the whole page.
          await nextTurn();
          await nextTurn();
        }
        const page = this.#parsePage(fetched);
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
        yield this.#validated(page, schema).items;
      }
    } finally {
      // A caller that stops early leaves at most one prefetched page; let it finish quietly.
      await pending?.then(
        (unused) => release(unused.body),
        () => undefined,
      );
    }
  }

  /** A page requested ahead of its turn; awaited later, so its failure must not count as unhandled until then. */
  #prefetch(page: PageQuery): Promise<PageBody> {
    const pending = this.#fetchPageBody(page);
    pending.catch(() => undefined);
    return pending;
  }

  #send(method: string, path: string, decision: RetryDecision): Promise<TransportResponse> {
    return sendWithRetry(
      () => this.#transport.request(path, { method, headers: { accept: 'application/json' } }),
      decision,
      this.#retry,
    );
  }

  /** Section 7 and the real service's `{code, message}` bodies, mapped to the project's classes. */
  async #statusError(
    response: TransportResponse,
    target: string,
    subject: { resource: string; id: string },
  ): Promise<ConnectorAuthError> {
    const body = await readJsonBody(response, target).catch(() => undefined);
    const parsed = pipelineErrorBodySchema.safeParse(body);
    const serviceCode = parsed.success ? parsed.data.code : undefined;
    const serviceMessage = parsed.success ? oneLine(parsed.data.message) : oneLine(bodyField(body, 'message'));
    const said = [serviceCode, serviceMessage].filter(Boolean).join(': ');
    const status = `HTTP ${response.status}${said ? ` ${said}` : ''}`;
    const s = response.status;
    if (s === 401 || s === 403)
      return new AuthenticationError(
        `${target} ${s === 401 ? 'rejected the API key and secret' : 'denied access (the API key lacks a permission)'} (${status})`,
        { code: `http_${s}`, key: this.#rejectedKey, hint: `check the API key and secret ('${this.#rejectedKey}')` },
      );
    if (s === 404)
      return new NotFoundError(
        `${target}: ${subject.resource}${subject.id ? ` '${subject.id}'` : ''} not found (${status})`,
        {
          code: 'not_found',
          resource: subject.resource,
          id: subject.id,
          hint: `check the ${subject.resource} identifier`,
        },
      );
    if (s >= 400 && s < 500 && s !== 429)
      return new InvalidRequestError(`${target} refused the request (${status})`, {
        code: `http_${s}`,
        hint: 'check the identifiers and parameters of the request',
      });
    return new SourceUnreachableError(`${target} answered ${status}${s === 429 || s >= 500 ? ' after retries' : ''}`, {
      code: `http_${s}`,
      hint:
        s === 429 ? 'the service is rate limiting this key; try again later' : 'the service failed; try again later',
    });
  }
}

interface PageQuery {
  path: string;
  query: Record<string, string | number | undefined>;
  subject: { resource: string; id: string };
}

interface PageBody {
  body: JsonBody;
  target: string;
}

interface RawPage {
  items: unknown[];
  nextCursor: string | undefined;
  target: string;
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

function checkIdentifier(value: unknown, name: string): void {
  // '.' and '..' survive encodeURIComponent unchanged and are then resolved as path segments by URL
  // parsing: `upgrade ..` would POST v1/upgrade, `connectors ..` would list v1/connectors. They can
  // name no record, so they are refused like an empty id.
  if (typeof value !== 'string' || value.length === 0 || value === '.' || value === '..')
    throw new InvalidRequestError(`${name} must be a non-empty string other than '.' and '..'`, {
      code: 'invalid_identifier',
      key: name,
    });
}
