import type { ColumnType } from '../../../connector/index.js';
import { ConnectorError } from '../../../errors/index.js';
import { writeValue } from './record-values.js';
import { WireWriter, varint32Size } from './wire-writer.js';

/**
 * Records waiting to go as one `UpdateResponse { records: Records { repeated Record } }`, encoded as
 * they arrive (wire-writer.ts). The partner SDK takes at most 100 records in one message, and no
 * message is larger than `MAX_BATCH_BYTES` unless one record alone is: a record that would push the
 * batch past it is held back for the next one. A gRPC client accepts 4 MiB by default, so a record of
 * more than that fails at the platform, whose limit it is.
 */

export const MAX_BATCH_RECORDS = 100;
export const MAX_BATCH_BYTES = 1024 * 1024;

/** RecordType in common.proto. */
export const RecordType = { upsert: 0, update: 1, delete: 2, truncate: 3 } as const;
export type RecordTypeNumber = (typeof RecordType)[keyof typeof RecordType];

/** Room before the records for the two prefixes written when the batch is taken: tag + length of `records`. */
const HEAD = 6;
const UPDATE_RESPONSE_RECORDS = (6 << 3) | 2;

export class RecordBatch {
  readonly #w = new WireWriter();
  #count = 0;
  /** Where the record held back for the next message starts, when the last one did not fit. */
  #heldBack: number | undefined;

  constructor() {
    this.#w.reset(HEAD);
  }

  get count(): number {
    return this.#count;
  }

  get full(): boolean {
    return this.#heldBack !== undefined || this.#count >= MAX_BATCH_RECORDS || this.#w.position >= MAX_BATCH_BYTES;
  }

  /**
   * Adds one record. `types`: the table's declared column types; `column`: whether a column is
   * selected (absent: all are). A value that cannot be sent leaves the batch as it was.
   */
  add(
    table: string,
    type: RecordTypeNumber,
    row: Record<string, unknown> | undefined,
    types: ReadonlyMap<string, ColumnType> | undefined,
    column?: (name: string) => boolean,
  ): void {
    if (row !== undefined && (row === null || typeof row !== 'object' || Array.isArray(row))) {
      throw new ConnectorError(`table '${table}': a row must be an object of column values`, {
        code: 'row_not_object',
        hint: 'pass op.upsert(table, { column: value, … })',
      });
    }
    const w = this.#w;
    const rollback = w.position;
    try {
      w.tag(1, 2);
      const record = w.begin();
      w.tag(2, 2);
      w.string(table);
      if (type !== 0) {
        w.tag(3, 0);
        w.varint32(type);
      }
      if (row) {
        for (const name in row) {
          if (!Object.hasOwn(row, name)) continue;
          const value = row[name];
          if (value === undefined || (column && !column(name))) continue;
          w.tag(4, 2);
          const entry = w.begin();
          w.tag(1, 2);
          w.string(name);
          w.tag(2, 2);
          const valueStart = w.begin();
          writeValue(w, value, types?.get(name), () => `table '${table}' column '${name}'`);
          w.end(valueStart);
          w.end(entry);
        }
      }
      w.end(record);
    } catch (error) {
      w.reset(rollback);
      throw error;
    }
    // HEAD holds the message's own prefix: `position` is the whole message's size, give or take a byte.
    if (this.#count > 0 && w.position > MAX_BATCH_BYTES) this.#heldBack = rollback;
    this.#count++;
  }

  /** The batch as one encoded UpdateResponse (a copy), and an empty batch; undefined when empty. */
  take(): Buffer | undefined {
    if (this.#count === 0) return undefined;
    const w = this.#w;
    const end = this.#heldBack ?? w.position;
    const length = end - HEAD;
    const start = HEAD - 1 - varint32Size(length);
    w.buffer[start] = UPDATE_RESPONSE_RECORDS;
    let v = length;
    let at = start + 1;
    while (v > 0x7f) {
      w.buffer[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    w.buffer[at] = v;
    const message = Buffer.from(w.buffer.subarray(start, end));
    const carried = w.position - end;
    w.buffer.copy(w.buffer, HEAD, end, w.position);
    w.reset(HEAD + carried);
    this.#count = this.#heldBack === undefined ? 0 : 1;
    this.#heldBack = undefined;
    return message;
  }
}
