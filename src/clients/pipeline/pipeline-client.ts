import type { z } from 'zod';
import { secrets as processSecrets, type SecretRegistry } from '../../secrets/index.js';
import {
  describeRequest,
  InvalidRequestError,
  readJsonBody,
  sendWithRetry,
  validate,
  type HttpTransport,
  type RetryDecision,
  type RetryOptions,
  type TransportResponse,
} from '../transport/index.js';
import { checkLimit } from './limit.js';
import { PageFetcher, type PageQuery, type RawPage } from './page-fetcher.js';
import { recordsOf } from './page-records.js';
import {
  connectorSchema,
  groupSchema,
  upgradeResultSchema,
  type Connector,
  type Group,
  type Page,
  type UpgradeResult,
} from './pipeline-records.js';
import { pipelineStatusError } from './pipeline-status-error.js';
import { validateRecord } from './record-validator.js';

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
  /** Listings, one page or all of them (page-fetcher.ts). */
  readonly #pages: PageFetcher;

  constructor(transport: HttpTransport, options: PipelineClientOptions = {}) {
    this.#transport = transport;
    this.#collection = options.collection ?? 'connectors';
    this.#retry = options.retry ?? {};
    this.#registry = options.registry ?? processSecrets;
    this.#rejectedKey = options.rejectedKey ?? 'password';
    this.#onClose = options.onClose;
    this.#pages = new PageFetcher({
      get: (path) => this.#send('GET', path, 'always'),
      statusError: (response, target, subject) => pipelineStatusError(response, target, subject, this.#rejectedKey),
    });
  }

  /** One page of groups (section 4.2). */
  async listGroups(request: PageRequest = {}): Promise<Page<Group>> {
    return this.#validated(await this.#pages.page(this.#groupsQuery(request)), groupSchema);
  }

  /** Every group, following `next_cursor` until it is absent. */
  groups(request: Omit<PageRequest, 'cursor'> = {}): AsyncIterable<Group> {
    checkLimit(request.limit);
    return recordsOf(
      this.#pages.pages(
        (cursor) => this.#groupsQuery({ ...request, ...(cursor ? { cursor } : {}) }),
        (page) => this.#validated(page, groupSchema).items,
      ),
    );
  }

  /** One page of the connectors of a group (section 4.1). */
  async listConnectors(groupId: string, request: ConnectorPageRequest = {}): Promise<Page<Connector>> {
    return this.#validated(await this.#pages.page(this.#connectorsQuery(groupId, request)), connectorSchema);
  }

  /** Every connector of a group, following `next_cursor` until it is absent. */
  connectors(groupId: string, request: Omit<ConnectorPageRequest, 'cursor'> = {}): AsyncIterable<Connector> {
    this.#connectorsQuery(groupId, request);
    return recordsOf(
      this.#pages.pages(
        (cursor) => this.#connectorsQuery(groupId, { ...request, ...(cursor ? { cursor } : {}) }),
        (page) => this.#validated(page, connectorSchema).items,
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
      throw await pipelineStatusError(
        response,
        target,
        { resource: 'transformation package', id: transformationId },
        this.#rejectedKey,
      );
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

  #send(method: string, path: string, decision: RetryDecision): Promise<TransportResponse> {
    return sendWithRetry(
      () => this.#transport.request(path, { method, headers: { accept: 'application/json' }, retries: 0 }),
      decision,
      this.#retry,
    );
  }
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
