import type { AlertKind, Destination, TableDefinition } from '../../../connector/index.js';
import type { Logger } from '../../../log/index.js';
import type { MessageOutput } from '../messages/index.js';
import { DELETED_AT } from '../catalog/index.js';
import type { StreamStatuses } from './stream-statuses.js';

/**
 * Where `op.*` lands during `airbyte read`: RECORD messages for the selected streams.
 *
 * - upsert: the row as a RECORD.
 * - delete: a RECORD of the key columns with `_ab_cdc_deleted_at` set to the time of the delete —
 *   Airbyte has no delete message; this is how its change-data-capture sources say a row is gone,
 *   and its destinations remove (or mark) the row when the stream is synced with deduplication.
 * - update: Airbyte replaces whole rows, so a RECORD of only the changed columns would leave the
 *   others empty downstream; it is sent as a RECORD all the same, with one warning per table.
 * - truncate: nothing in the protocol marks every row of a stream deleted; a full refresh with
 *   overwrite replaces the table instead. Logged once per table, nothing sent.
 *
 * Row values become JSON: Date as ISO 8601, BigInt as its digits (a string), bytes as base64. In a
 * column the table declares numeric (DECIMAL, an integer type, FLOAT/DOUBLE), a BigInt or a decimal
 * text (pg's `numeric`, kept exact) is sent as a JSON number written with those digits: the stream's
 * json_schema says `number`/`integer` there, and Airbyte (and its acceptance tests) check the values
 * against it; JSON numbers carry any precision, so nothing is rounded on the way.
 * A table the catalog did not select is counted by the run like any other but sends nothing.
 */
export class RecordDestination implements Destination {
  readonly schemaChanges = 0;
  /** Records sent per stream since the last checkpoint: each STATE message's recordCount. */
  readonly sinceCheckpoint = new Map<string, number>();
  readonly #output: MessageOutput;
  readonly #selected: ReadonlySet<string>;
  readonly #log: Logger;
  readonly #statuses: StreamStatuses;
  readonly #warned = new Set<string>();
  /** Whether the last row's JSON held only flat values (recordJson says so, reusing this object). */
  readonly #shape = { flat: false };
  /** Per table, the columns declared with a numeric type. */
  readonly #numeric = new Map<string, ReadonlySet<string>>();

  constructor(output: MessageOutput, selected: ReadonlySet<string>, log: Logger, statuses: StreamStatuses) {
    this.#output = output;
    this.#selected = selected;
    this.#log = log;
    this.#statuses = statuses;
  }

  /** Records sent since the last checkpoint, all streams together. */
  get pending(): number {
    let total = 0;
    for (const count of this.sinceCheckpoint.values()) total += count;
    return total;
  }

  async declare(tables: TableDefinition[]): Promise<void> {
    for (const table of tables) {
      const numeric = Object.entries(table.columns ?? {}).filter(([, type]) =>
        NUMERIC.has(typeof type === 'object' ? type.type : type),
      );
      if (numeric.length > 0) this.#numeric.set(table.table, new Set(numeric.map(([column]) => column)));
    }
    const declared = new Set(tables.map((t) => t.table));
    const unknown = [...this.#selected].filter((name) => !declared.has(name));
    if (unknown.length > 0)
      this.#log.warning(
        `the catalog selects ${unknown.map((n) => `'${n}'`).join(', ')}, which the connector's schema() does not declare: run discover again`,
      );
  }

  upsert(table: string, row: Record<string, unknown>): Promise<void> {
    return this.#send(table, row, true);
  }

  update(table: string, row: Record<string, unknown>): Promise<void> {
    this.#once(
      `update:${table}`,
      () =>
        `op.update('${table}', …) sends only the changed columns; Airbyte replaces whole rows, so the others arrive empty: use op.upsert with the whole row`,
    );
    return this.#send(table, row, true);
  }

  delete(table: string, keys: Record<string, unknown>): Promise<void> {
    return this.#send(table, { ...keys, [DELETED_AT]: new Date().toISOString() }, false);
  }

  async truncate(table: string): Promise<void> {
    this.#once(
      `truncate:${table}`,
      () =>
        `op.truncate('${table}') has no Airbyte message and sends nothing; sync the stream with full refresh and overwrite to replace the table`,
    );
  }

  /** Airbyte shows no alerts of a source's own: a warning is a WARN log line; a task's stop is the TRACE error that follows. */
  async alert(kind: AlertKind, message: string): Promise<void> {
    if (kind === 'warning') this.#log.warning(`warning from the connector: ${message}`);
  }

  flush(): Promise<void> {
    return this.#output.flush();
  }

  /** The output outlives the run (the failure, if any, is still to be sent): closing only flushes. */
  close(): Promise<void> {
    return this.#output.flush();
  }

  /**
   * `guarded`: the row is as the operations' row guard checked it a moment ago (upsert, update; rows
   * reach a destination only through createOperations). Its line then skips the output's scan when
   * its JSON holds only those values: no object (its JSON was checked, not its place in ours), no
   * escape (a `\n` in the line is not the line break the guard saw).
   */
  // Not async: a row costs no promise of its own while the reader keeps up (one resolved promise
  // serves them all); a throw becomes a rejection in createOperations.
  #send(table: string, row: Record<string, unknown>, guarded: boolean): Promise<void> {
    if (!this.#selected.has(table)) return RESOLVED;
    const sent = this.sinceCheckpoint.get(table);
    if (sent === undefined) this.#statuses.recordOf(table);
    this.sinceCheckpoint.set(table, (sent ?? 0) + 1);
    const json = recordJson(row, this.#numeric.get(table), this.#shape);
    const checked = guarded && this.#shape.flat && json.indexOf('\\') === -1;
    return this.#output.record(table, json, Date.now(), checked) ?? RESOLVED;
  }

  #once(key: string, message: () => string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#log.warning(message());
  }
}

const RESOLVED = Promise.resolve();
const NUMERIC = new Set(['SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE', 'DECIMAL']);
/** A number as JSON writes it: what may go into a RECORD unquoted. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A row as the JSON of a RECORD's `data`; the plain case (no bytes, no BigInt) without a replacer.
 * `numeric`: the columns declared numeric, whose digits (a BigInt, a decimal text) go out as a JSON number.
 * `shape.flat` is set to whether every value was a string, number, boolean, null or date: values the
 * row guard reads as they are written here.
 */
export function recordJson(
  row: Record<string, unknown>,
  numeric?: ReadonlySet<string>,
  shape: { flat: boolean } = { flat: false },
): string {
  if (numeric) {
    const digits: string[] = [];
    let copy: Record<string, unknown> | undefined;
    for (const column of numeric) {
      const value = row[column];
      const text = typeof value === 'bigint' ? value.toString() : typeof value === 'string' ? value.trim() : undefined;
      if (text === undefined || !JSON_NUMBER.test(text)) continue;
      copy ??= { ...row };
      copy[column] = `${NUMBER_MARK}${digits.length}`;
      digits.push(text);
    }
    if (copy)
      return recordJson(copy, undefined, shape).replace(NUMBER_MARKS, (_, index: string) => digits[Number(index)]!);
  }
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint' || (typeof value === 'object' && value !== null && !(value instanceof Date))) {
      shape.flat = false;
      return JSON.stringify(row, replace);
    }
  }
  shape.flat = true;
  return JSON.stringify(row);
}

// A placeholder no row can hold by chance: the JSON text around it is the row's own.
const NUMBER_MARK = `\u0001connector-auth-number-${process.pid}-${Date.now()}:`;
const NUMBER_MARKS = new RegExp(
  `"${JSON.stringify(NUMBER_MARK)
    .slice(1, -1)
    .replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(\\d+)"`,
  'g',
);

function replace(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // `this[key]` is the value before toJSON ran: a Buffer's toJSON would hide its bytes in an array.
  const original = key === '' ? value : this[key];
  if (typeof original === 'bigint') return original.toString();
  if (ArrayBuffer.isView(original))
    return Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64');
  if (original instanceof ArrayBuffer) return Buffer.from(original).toString('base64');
  return value;
}
