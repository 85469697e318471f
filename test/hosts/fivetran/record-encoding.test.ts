import * as loader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import type { ColumnType } from '../../../src/connector/index.js';
import { MAX_BATCH_BYTES, MAX_BATCH_RECORDS, RecordBatch, RecordType } from '../../../src/hosts/fivetran/index.js';
import { PROTOCOL_DIR } from './support.js';

/**
 * The records of an Update are written to the wire by hand (wire-writer.ts); here they are read back
 * with protobufjs through our .proto files, and compared with what protobufjs itself encodes for the
 * same values, so the two encoders cannot disagree.
 */

const definition = loader.loadSync('connector_sdk.proto', {
  includeDirs: [PROTOCOL_DIR],
  keepCase: true,
  longs: String,
  enums: String,
  oneofs: true,
  defaults: false,
});
const update = (
  definition['fivetran_sdk.v2.SourceConnector'] as unknown as {
    Update: { responseSerialize(m: unknown): Buffer; responseDeserialize(b: Buffer): unknown };
  }
).Update;

interface Decoded {
  records: { records: { table_name: string; type?: string; data?: Record<string, Record<string, unknown>> }[] };
}
const decode = (buffer: Buffer | undefined) => (update.responseDeserialize(buffer!) as Decoded).records.records;

function one(
  row: Record<string, unknown>,
  types?: Record<string, ColumnType>,
): Record<string, Record<string, unknown>> {
  const batch = new RecordBatch();
  batch.add('t', RecordType.upsert, row, types ? new Map(Object.entries(types)) : undefined);
  return decode(batch.take())[0]!.data ?? {};
}

const value = (v: Record<string, unknown>) => ({ ...v, inner: Object.keys(v)[0] });

describe('RecordBatch: values written by hand, read by protobufjs', () => {
  it('infers types from values as the warehouse does', () => {
    const at = new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 250));
    expect(
      one({
        s: 'ü€😀',
        b: false,
        i: -1,
        zero: 0,
        max: Number.MAX_SAFE_INTEGER,
        beyond: 2 ** 60,
        d: -0.5,
        nan: Number.NaN,
        big: -(2n ** 63n),
        huge: 2n ** 64n,
        at,
        bytes: new Uint8Array([0, 255, 1]),
        obj: { a: [1, 2n, null] },
        n: null,
        u: undefined,
      }),
    ).toEqual({
      s: value({ string: 'ü€😀' }),
      b: value({ bool: false }),
      i: value({ long: '-1' }),
      zero: value({ long: '0' }),
      max: value({ long: String(Number.MAX_SAFE_INTEGER) }),
      beyond: value({ long: String(2n ** 60n) }),
      d: value({ double: -0.5 }),
      nan: value({ double: Number.NaN }),
      big: value({ long: String(-(2n ** 63n)) }),
      huge: value({ decimal: String(2n ** 64n) }),
      at: value({ utc_datetime: { seconds: '-1', nanos: 250_000_000 } }),
      bytes: value({ binary: Buffer.from([0, 255, 1]) }),
      obj: value({ json: '{"a":[1,"2",null]}' }),
      n: value({ null: true }),
    });
  });

  it('converts to declared types where the value says the same thing, and refuses the rest naming the column, never the value', () => {
    const types: Record<string, ColumnType> = {
      flag: 'BOOLEAN',
      small: 'SHORT',
      count: 'INT',
      id: 'LONG',
      ratio: 'FLOAT',
      amount: { type: 'DECIMAL', precision: 12, scale: 2 },
      day: 'NAIVE_DATE',
      local: 'NAIVE_DATETIME',
      when: 'UTC_DATETIME',
      text: 'STRING',
      doc: 'JSON',
      markup: 'XML',
    };
    expect(
      one(
        {
          flag: 'true',
          small: '-7',
          count: 2 ** 31 - 1,
          id: '9223372036854775807',
          ratio: '0.25',
          amount: 12.5,
          day: new Date(Date.UTC(2024, 1, 29, 13)),
          local: '2024-02-29 13:14:15.5',
          when: '2024-02-29T13:14:15+02:00',
          text: 42n,
          doc: '[1,2]',
          markup: '<a/>',
        },
        types,
      ),
    ).toEqual({
      flag: value({ bool: true }),
      small: value({ short: -7 }),
      count: value({ int: 2 ** 31 - 1 }),
      id: value({ long: '9223372036854775807' }),
      ratio: value({ float: 0.25 }),
      amount: value({ decimal: '12.5' }),
      day: value({ naive_date: { seconds: String(Date.UTC(2024, 1, 29) / 1000) } }),
      local: value({
        naive_datetime: { seconds: String(Date.UTC(2024, 1, 29, 13, 14, 15) / 1000), nanos: 500_000_000 },
      }),
      when: value({ utc_datetime: { seconds: String(Date.UTC(2024, 1, 29, 11, 14, 15) / 1000) } }),
      text: value({ string: '42' }),
      doc: value({ json: '[1,2]' }),
      markup: value({ xml: '<a/>' }),
    });
    const refused = (row: Record<string, unknown>, type: ColumnType) => {
      const batch = new RecordBatch();
      try {
        batch.add('orders', RecordType.upsert, row, new Map([['c', type]]));
      } catch (error) {
        expect(batch.count).toBe(0);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused({ c: 'secret-looking-text' }, 'LONG')).toBe(
      "table 'orders' column 'c': a string value cannot be sent as LONG",
    );
    expect(refused({ c: 40000 }, 'SHORT')).toMatch(/a number value cannot be sent as SHORT/);
    expect(refused({ c: 'abc' }, 'BINARY')).toMatch(/cannot be sent as BINARY/);
    expect(refused({ c: 'not json' }, 'JSON')).toMatch(/cannot be sent as JSON/);
    expect(refused({ c: new Date(Number.NaN) }, 'UTC_DATETIME')).toMatch(/invalid date/);
    expect(refused({ c: '1.5' }, 'INT')).toMatch(/cannot be sent as INT/);
  });

  it('agrees byte for byte, after decoding, with protobufjs on long and nested values (length prefixes of 1, 2 and 3 bytes)', () => {
    const long = 'x'.repeat(200);
    const longer = 'é'.repeat(20_000);
    const batch = new RecordBatch();
    batch.add('wide', RecordType.update, { a: long, b: longer, [long]: 1 }, undefined);
    batch.add('wide', RecordType.delete, { id: 1 }, undefined);
    batch.add('wide', RecordType.truncate, undefined, undefined);
    const ours = batch.take()!;
    const theirs = update.responseSerialize({
      records: {
        records: [
          {
            table_name: 'wide',
            type: 'UPDATE',
            data: { a: { string: long }, b: { string: longer }, [long]: { long: '1' } },
          },
          { table_name: 'wide', type: 'DELETE', data: { id: { long: '1' } } },
          { table_name: 'wide', type: 'TRUNCATE' },
        ],
      },
    });
    expect(update.responseDeserialize(ours)).toEqual(update.responseDeserialize(theirs));
    expect(ours.length).toBe(theirs.length);
  });

  it('is full at 100 records or 1 MiB, and empty again once taken', () => {
    const batch = new RecordBatch();
    for (let i = 0; i < MAX_BATCH_RECORDS - 1; i++) batch.add('t', RecordType.upsert, { id: i }, undefined);
    expect(batch.full).toBe(false);
    batch.add('t', RecordType.upsert, { id: 99 }, undefined);
    expect(batch.full).toBe(true);
    expect(decode(batch.take())).toHaveLength(MAX_BATCH_RECORDS);
    expect(batch.take()).toBeUndefined();
    batch.add('t', RecordType.upsert, { blob: 'y'.repeat(MAX_BATCH_BYTES) }, undefined);
    expect(batch.count).toBe(1);
    expect(batch.full).toBe(true);
  });

  it('never passes 1 MiB unless one record alone does: the record that would is held for the next message', () => {
    const batch = new RecordBatch();
    const third = Math.floor(MAX_BATCH_BYTES / 3);
    for (const id of [1, 2]) batch.add('t', RecordType.upsert, { id, blob: 'x'.repeat(third) }, undefined);
    expect(batch.full).toBe(false);
    batch.add('t', RecordType.upsert, { id: 3, blob: 'x'.repeat(third) }, undefined);
    expect(batch.full).toBe(true);
    const first = batch.take()!;
    expect(first.length).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(decode(first).map((r) => r.data?.id?.long)).toEqual(['1', '2']);
    expect(batch.count).toBe(1);
    expect(batch.full).toBe(false);
    // Three records of 3 MiB: one message each, the one record alone past the cap.
    const big = 'y'.repeat(3 * MAX_BATCH_BYTES);
    const messages = [batch.take()!];
    for (const id of [4, 5, 6]) {
      batch.add('t', RecordType.upsert, { id, big }, undefined);
      while (batch.full) messages.push(batch.take()!);
    }
    expect(batch.take()).toBeUndefined();
    expect(messages.map((m) => decode(m).map((r) => r.data?.id?.long))).toEqual([['3'], ['4'], ['5'], ['6']]);
    for (const message of messages.slice(1)) expect(message.length).toBeLessThan(3 * MAX_BATCH_BYTES + 64);
  });
});
