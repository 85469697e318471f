import type { Connector, Group, Webhook } from '../../clients/index.js';
import { SortedIndex } from './sorted-index.js';

/**
 * Everything the emulator serves, in memory. Records are kept in key order (see sorted-index.ts) and
 * each keeps its JSON text, serialized when the record is written: writes are rare, reads are pages,
 * and serving a page of 1000 connectors is then a slice and a join, not 1000 serializations.
 */

export interface StoredRecord<T> {
  readonly record: T;
  /** The record's JSON as UTF-8 bytes: a page is one Buffer.concat, no string building or re-encoding. */
  json: Buffer | undefined;
}

export interface Transformation {
  id: string;
  name?: string;
  version: number;
  latest_version: number;
}

interface GroupConnectors {
  all: SortedIndex<StoredRecord<Connector>>;
  /** Secondary index for the `schema` filter: a filtered page is as cheap as an unfiltered one. */
  bySchema: Map<string, SortedIndex<StoredRecord<Connector>>>;
}

/** How a webhook's secret appears in fetch and list answers. */
const MASKED_SECRET = '******';

export class EmulatorStore {
  readonly #groups = new SortedIndex<StoredRecord<Group>>();
  readonly #connectorsOfGroup = new Map<string, GroupConnectors>();
  readonly #connectors = new Map<string, StoredRecord<Connector>>();
  readonly #webhooks = new Map<number, Webhook>();
  readonly #webhookSecrets = new Map<number, string>();
  readonly #transformations = new Map<string, Transformation>();
  #nextWebhookId = 1;
  /** Section 5.2: 403 on every webhook call when the organization lacks the feature. */
  webhookFeatureAvailable = true;

  // groups

  addGroup(group: Group): void {
    if (this.#groups.get(group.id)) throw new Error(`group '${group.id}' exists already`);
    this.#groups.set(group.id, { record: group, json: undefined });
    this.#connectorsOfGroup.set(group.id, { all: new SortedIndex(), bySchema: new Map() });
  }

  getGroup(id: string): Group | undefined {
    return this.#groups.get(id)?.record;
  }

  get groupIndex(): SortedIndex<StoredRecord<Group>> {
    return this.#groups;
  }

  /** Removes a group and its connectors. */
  removeGroup(id: string): boolean {
    const connectors = this.#connectorsOfGroup.get(id);
    if (!connectors) return false;
    for (const stored of connectors.all.values()) this.#connectors.delete(stored.record.id);
    this.#connectorsOfGroup.delete(id);
    return this.#groups.delete(id);
  }

  get groupCount(): number {
    return this.#groups.size;
  }

  // connectors

  addConnector(connector: Connector): void {
    const group = this.#connectorsOfGroup.get(connector.group_id);
    if (!group) throw new Error(`group '${connector.group_id}' does not exist`);
    if (this.#connectors.has(connector.id)) throw new Error(`connector '${connector.id}' exists already`);
    const stored: StoredRecord<Connector> = { record: connector, json: serialize(connector) };
    this.#connectors.set(connector.id, stored);
    group.all.set(connector.id, stored);
    this.#schemaIndex(group, connector.schema).set(connector.id, stored);
  }

  getConnector(id: string): Connector | undefined {
    return this.#connectors.get(id)?.record;
  }

  removeConnector(id: string): boolean {
    const stored = this.#connectors.get(id);
    if (!stored) return false;
    const group = this.#connectorsOfGroup.get(stored.record.group_id)!;
    group.all.delete(id);
    this.#unindexSchema(group, stored.record.schema, id);
    return this.#connectors.delete(id);
  }

  /** Changes a connector in place; its cached JSON and its schema index entry follow. */
  updateConnector(id: string, change: (connector: Connector) => void): Connector | undefined {
    const stored = this.#connectors.get(id);
    if (!stored) return undefined;
    const schemaBefore = stored.record.schema;
    change(stored.record);
    stored.json = serialize(stored.record);
    if (stored.record.schema !== schemaBefore) {
      const group = this.#connectorsOfGroup.get(stored.record.group_id)!;
      this.#unindexSchema(group, schemaBefore, id);
      this.#schemaIndex(group, stored.record.schema).set(id, stored);
    }
    return stored.record;
  }

  /** The index a page of a group's connectors is cut from; undefined for an unknown group. */
  connectorIndex(groupId: string, schema?: string): SortedIndex<StoredRecord<Connector>> | undefined {
    const group = this.#connectorsOfGroup.get(groupId);
    if (!group) return undefined;
    if (schema === undefined) return group.all;
    return group.bySchema.get(schema) ?? new SortedIndex();
  }

  get connectorCount(): number {
    return this.#connectors.size;
  }

  *connectors(): IterableIterator<Connector> {
    for (const stored of this.#connectors.values()) yield stored.record;
  }

  // webhooks

  /** A `secret` is kept apart: the record shows it masked, as the real service does, and deliveries are signed with it. */
  addWebhook(webhook: Omit<Webhook, 'id'> & { id?: number; secret?: string }): Webhook {
    const { secret, ...record } = webhook;
    const id = record.id ?? this.#nextWebhookId;
    if (this.#webhooks.has(id)) throw new Error(`webhook ${id} exists already`);
    const stored = { ...record, id, ...(secret ? { secret: MASKED_SECRET } : {}) } as Webhook;
    this.#webhooks.set(id, stored);
    if (secret) this.#webhookSecrets.set(id, secret);
    this.#nextWebhookId = Math.max(this.#nextWebhookId, id + 1);
    return stored;
  }

  /** The secret a webhook's deliveries are signed with, if it has one. */
  webhookSecret(id: number): string | undefined {
    return this.#webhookSecrets.get(id);
  }

  getWebhook(id: number): Webhook | undefined {
    return this.#webhooks.get(id);
  }

  listWebhooks(): Webhook[] {
    return [...this.#webhooks.values()].sort((a, b) => a.id - b.id);
  }

  deleteWebhook(id: number): boolean {
    this.#webhookSecrets.delete(id);
    return this.#webhooks.delete(id);
  }

  // transformation packages

  addTransformation(transformation: Transformation): void {
    this.#transformations.set(transformation.id, transformation);
  }

  getTransformation(id: string): Transformation | undefined {
    return this.#transformations.get(id);
  }

  /** Section 4.3: to the latest version. False when no such package exists. */
  upgradeTransformation(id: string): boolean {
    const t = this.#transformations.get(id);
    if (!t) return false;
    t.version = t.latest_version;
    return true;
  }

  /** Counts and a digest of every record, for tests that assert a refused request changed nothing. */
  snapshot(): string {
    return JSON.stringify({
      groups: [...this.#groups.values()].map((g) => g.record),
      connectors: [...this.#connectors.values()].map((c) => c.record),
      webhooks: this.listWebhooks(),
      transformations: [...this.#transformations.values()],
      webhookFeatureAvailable: this.webhookFeatureAvailable,
    });
  }

  #schemaIndex(group: GroupConnectors, schema: string): SortedIndex<StoredRecord<Connector>> {
    let index = group.bySchema.get(schema);
    if (!index) group.bySchema.set(schema, (index = new SortedIndex()));
    return index;
  }

  #unindexSchema(group: GroupConnectors, schema: string, id: string): void {
    const index = group.bySchema.get(schema);
    if (!index) return;
    index.delete(id);
    if (index.size === 0) group.bySchema.delete(schema);
  }
}

/** The record's JSON bytes (serialized on write; on first read for records stored without them). */
export function jsonOf<T>(stored: StoredRecord<T>): Buffer {
  return (stored.json ??= serialize(stored.record));
}

function serialize(record: unknown): Buffer {
  return Buffer.from(JSON.stringify(record), 'utf8');
}
