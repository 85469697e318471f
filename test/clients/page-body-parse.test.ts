import { afterEach, describe, expect, it, vi } from 'vitest';
// internals: the transport's page parser, below what PipelineClient exports
import { parsePageBody } from '../../src/clients/transport/page-body-parse.js';
import { defaultEmulatorData } from '../../src/emulator/index.js';

/**
 * parsePageBody must answer exactly what JSON.parse of the whole body answers (V8's own parser is
 * the oracle here), throw when it throws, and for a compact page never make a string of the whole
 * body: that is what it is for (large strings cost page faults, src/clients/transport/page-body-parse.ts).
 */

/** V8 puts strings over this many bytes in its large-object space. */
const LARGE_STRING = 128 * 1024;

const template = defaultEmulatorData().connectors!.find((c) => !c.connect_card)!;
const connectors = (count: number, shape: (i: number) => object = () => ({})) =>
  Array.from({ length: count }, (_, i) => ({
    ...structuredClone(template),
    id: `grp_x_conn_${String(i).padStart(7, '0')}`,
    schema: `schema_${i}`,
    ...shape(i),
  }));
const envelope = (items: unknown[], nextCursor: string | undefined = 'eyJhZnRlciI6Inh5eiJ9') => ({
  code: 'Success',
  message: 'Operation performed.',
  data: { items, ...(nextCursor === undefined ? {} : { next_cursor: nextCursor }) },
});
const bytesOf = (text: string) => Buffer.from(text, 'utf8');

/** Both outcomes, compared: the same value, or both a SyntaxError. */
function expectSameAsJsonParse(text: string, bytes = bytesOf(text)): void {
  let expected: { value: unknown } | { error: unknown };
  try {
    expected = { value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch (error) {
    expected = { error };
  }
  const before = Buffer.from(bytes);
  if ('error' in expected) {
    expect(() => parsePageBody(bytes)).toThrow(SyntaxError);
  } else {
    expect(parsePageBody(bytes)).toStrictEqual(expected.value);
  }
  // The parser writes brackets into the buffer while it works: it must leave it as it was.
  expect(bytes.equals(before)).toBe(true);
}

/** The longest string JSON.parse was handed while `run` ran. */
function longestParsed(run: () => void): number {
  const spy = vi.spyOn(JSON, 'parse');
  try {
    run();
    return Math.max(0, ...spy.mock.calls.map(([text]) => (text as string).length));
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parsePageBody answers what JSON.parse answers', () => {
  it('for emulator pages of 1, 100, 1000 and 3000 connectors', () => {
    for (const count of [1, 100, 1000, 3000]) expectSameAsJsonParse(JSON.stringify(envelope(connectors(count))));
  });

  it('for the last page (no next_cursor) and an empty page', () => {
    expectSameAsJsonParse(JSON.stringify(envelope(connectors(1000), undefined)));
    expectSameAsJsonParse(JSON.stringify(envelope([], undefined)));
  });

  it('when items hold the separator bytes one level down (a nested array of objects whose first key is id)', () => {
    // `},{"id":` then appears inside every item: those cuts do not parse and the next candidate is taken.
    const nested = (i: number) => ({ config: { tables: [{ id: `t${i}a` }, { id: `t${i}b` }, { id: `t${i}c` }] } });
    const text = JSON.stringify(envelope(connectors(1000, nested)));
    expectSameAsJsonParse(text);
    expect(longestParsed(() => parsePageBody(bytesOf(text)))).toBeLessThan(LARGE_STRING);
  });

  it('when string values hold brackets, quotes, escapes and the envelope key', () => {
    const tricky = (i: number) => ({
      service: `a},{"id":"x${i}"}],"items":[{`,
      connected_by: '\\"items\\":[\\\\',
      config: { note: '}]}}', path: 'C:\\dir\\' },
    });
    const text = JSON.stringify(envelope(connectors(1000, tricky)));
    expectSameAsJsonParse(text);
    expect(longestParsed(() => parsePageBody(bytesOf(text)))).toBeLessThan(LARGE_STRING);
  });

  it('when items hold multi-byte UTF-8 (cuts fall only on ASCII bytes)', () => {
    const text = (i: number) => ({ service: `Zürich ☃ 東京 ${'🎉'.repeat(i % 7)}`, schema: `ß${i}` });
    const body = JSON.stringify(envelope(connectors(1500, text)));
    expectSameAsJsonParse(body);
    expect(longestParsed(() => parsePageBody(bytesOf(body)))).toBeLessThan(LARGE_STRING);
  });

  it('for envelopes of other shapes: keys in another order, pretty-printed, a second items key, a byte order mark', () => {
    const items = connectors(1000);
    expectSameAsJsonParse(JSON.stringify({ data: { next_cursor: 'c', items }, code: 'Success' }));
    expectSameAsJsonParse(JSON.stringify(envelope(items), null, 2));
    // A parser takes the last of two equal keys: the items read in pieces must not be taken for them.
    const twice = JSON.stringify(envelope(items));
    expectSameAsJsonParse(`${twice.slice(0, -2)},"items":[{"id":"the-last-one"}]}}`);
    expectSameAsJsonParse(`\uFEFF${twice}`);
    // An items array that is not data.items.
    expectSameAsJsonParse(JSON.stringify({ code: 'Success', items, data: { items: [] } }));
    expectSameAsJsonParse(JSON.stringify({ code: 'Success', data: { other: { items }, items: [1] } }));
  });

  it('throws as JSON.parse does for invalid bodies: trailing comma, truncated, garbage after', () => {
    const text = JSON.stringify(envelope(connectors(1000)));
    const lastItemEnd = text.lastIndexOf('}]');
    expectSameAsJsonParse(`${text.slice(0, lastItemEnd + 1)},]${text.slice(lastItemEnd + 2)}`);
    expectSameAsJsonParse(text.slice(0, text.length - 300));
    expectSameAsJsonParse(text.slice(0, 400_000));
    expectSameAsJsonParse(`${text} x`);
    expectSameAsJsonParse(text.replace('"schema_500"', '"schema_500" "x"'));
  });

  it('and for 200 bodies with one byte changed at random (seeded): never a different value', () => {
    const text = JSON.stringify(envelope(connectors(400, (i) => ({ config: { list: [{ id: i }, { id: -i }] } }))));
    const replacements = Buffer.from('{}[],:"\\ 0a');
    let seed = 20261122;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const bytes = bytesOf(text);
      const at = Math.floor(random() * bytes.length);
      bytes[at] = replacements[Math.floor(random() * replacements.length)]!;
      expectSameAsJsonParse(bytes.toString('utf8'), bytes);
    }
  });
});

describe('parsePageBody makes no string of a whole large page', () => {
  it('a page of 1000 connectors (~850 KB) is parsed in pieces under the large-object size', () => {
    const bytes = bytesOf(JSON.stringify(envelope(connectors(1000))));
    expect(bytes.length).toBeGreaterThan(800_000);
    const longest = longestParsed(() => parsePageBody(bytes));
    expect(longest).toBeLessThan(LARGE_STRING);
  });

  it('a pretty-printed page is parsed whole (the fallback), and still right', () => {
    const bytes = bytesOf(JSON.stringify(envelope(connectors(1000)), null, 1));
    expect(longestParsed(() => parsePageBody(bytes))).toBe(bytes.length);
  });

  it('reads only bytes [0, length) of a larger buffer', () => {
    const text = JSON.stringify(envelope(connectors(1000)));
    const buffer = Buffer.alloc(text.length + 5000, 'x');
    const length = buffer.write(text);
    expect(parsePageBody(buffer, length)).toStrictEqual(JSON.parse(text));
  });
});
