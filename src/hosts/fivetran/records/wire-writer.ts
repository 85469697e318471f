/**
 * Protocol Buffers wire format, written by hand for the one hot path: the records of an Update
 * stream. The generic path (protobufjs's `fromObject` + `encode`, as proto-loader does it) builds a
 * message object per record and per value and made about 320,000 five-column records/s; writing
 * the bytes straight into one growing buffer makes several times that, so the stream, not the
 * encoder, bounds a sync. Every other message (forms, schemas, checkpoints) goes through protobufjs
 * (service-definition.ts). Tests decode what this writes with the protocol files
 * (`test/hosts/fivetran/record-encoding.test.ts`).
 *
 * Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit.
 */

const TWO_POW_32 = 2 ** 32;

export class WireWriter {
  buffer: Buffer;
  position = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  reset(position = 0): void {
    this.position = position;
  }

  ensure(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.position + bytes));
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
  }

  /** A field's key: its number and wire type. */
  tag(field: number, wireType: number): void {
    this.varint32((field << 3) | wireType);
  }

  /** An unsigned varint below 2^32 (tags, lengths, non-negative int32). */
  varint32(value: number): void {
    this.ensure(5);
    let v = value >>> 0;
    while (v > 0x7f) {
      this.buffer[this.position++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.position++] = v;
  }

  /**
   * An int64 or int32 field's varint: a negative value is its 64-bit two's complement, 10 bytes, as
   * protobuf writes a negative int32 too. `value` is an integer number (exact below 2^53) or a bigint.
   */
  varint64(value: number | bigint): void {
    if (typeof value === 'number' && value >= 0) {
      if (value < TWO_POW_32) return this.varint32(value);
      this.ensure(10);
      let v = value;
      while (v > 0x7f) {
        this.buffer[this.position++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      this.buffer[this.position++] = v;
      return;
    }
    this.ensure(10);
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 0x7fn) {
      this.buffer[this.position++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buffer[this.position++] = Number(v);
  }

  double(value: number): void {
    this.ensure(8);
    this.position = this.buffer.writeDoubleLE(value, this.position);
  }

  float(value: number): void {
    this.ensure(4);
    this.position = this.buffer.writeFloatLE(value, this.position);
  }

  /** A length-delimited UTF-8 string (its length prefix included). */
  string(value: string): void {
    // At most 3 bytes per UTF-16 unit: room for the longest encoding, then the exact length.
    const most = value.length * 3;
    if (most < 128) {
      this.ensure(1 + most);
      const written = this.buffer.write(value, this.position + 1, 'utf8');
      this.buffer[this.position] = written;
      this.position += 1 + written;
      return;
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.varint32(length);
    this.ensure(length);
    this.position += this.buffer.write(value, this.position, 'utf8');
  }

  bytes(value: Uint8Array): void {
    this.varint32(value.byteLength);
    this.ensure(value.byteLength);
    this.buffer.set(value, this.position);
    this.position += value.byteLength;
  }

  /** Opens a length-delimited field's content: one byte is kept for its length, the usual case. */
  begin(): number {
    this.ensure(1);
    return this.position++;
  }

  /** Closes what `begin` opened: writes the length, moving the content when it needs a longer prefix. */
  end(start: number): void {
    const length = this.position - start - 1;
    if (length < 128) {
      this.buffer[start] = length;
      return;
    }
    const extra = varint32Size(length) - 1;
    this.ensure(extra);
    this.buffer.copyWithin(start + 1 + extra, start + 1, this.position);
    this.position += extra;
    let v = length;
    let at = start;
    while (v > 0x7f) {
      this.buffer[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[at] = v;
  }
}

export function varint32Size(value: number): number {
  return value < 2 ** 7 ? 1 : value < 2 ** 14 ? 2 : value < 2 ** 21 ? 3 : value < 2 ** 28 ? 4 : 5;
}
