/**
 * `JSON.parse` of a page body (`{…"data":{"items":[…], …}}`) read as bytes, done in pieces of about
 * 64 KiB so that no string of the whole body is ever made.
 *
 * Why: a page of 1000 connectors is ~850 KB. V8 puts any string over 128 KiB in its large-object
 * space, which maps fresh memory for each one, and touching it costs ~210 page faults per page: on
 * these VMs 0.5–0.9 ms of kernel time per page, a sixth of the whole listing. Strings of 64 KiB are
 * made in the young generation, which reuses its memory.
 *
 * How, and why it cannot give a wrong answer: the body is cut at places that look like the boundary
 * between two items (`},{"<first key>":`), and every piece is parsed on its own as `[<piece>]`. A
 * piece that parses is a whole list of values, so the next piece again starts at an item: the
 * pieces' values are the items, in order. A cut that is not a boundary (the same bytes inside an item)
 * makes a piece that does not parse, and the next candidate is tried. The envelope is parsed as the
 * body with the middle items left out, and checked to be the array the head opened (`data.items`).
 * Anything unexpected — another envelope, a pretty-printed body, invalid JSON — falls back to one
 * `JSON.parse` of the whole body, which also gives the usual SyntaxError for invalid input.
 */

/** Pieces of about this many bytes: under V8's 128 KiB large-object limit, big enough that calls are few. */
const PIECE_BYTES = 64 * 1024;
/** The items array opens within this many bytes of the start, or the body is parsed whole. */
const HEAD_WITHIN = 4096;
/** Candidate cuts tried for one piece before giving up and parsing the body whole. */
const TRIES_PER_PIECE = 3;
const ITEMS_OPEN = Buffer.from('"items":[');
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export function parsePageBody(bytes: Buffer, length = bytes.length): unknown {
  if (length <= PIECE_BYTES * 2) return parseWhole(bytes, length);
  const itemsAt = bytes.subarray(0, Math.min(length, HEAD_WITHIN)).indexOf(ITEMS_OPEN);
  if (itemsAt < 0) return parseWhole(bytes, length);
  const itemsStart = itemsAt + ITEMS_OPEN.length;
  const head = bytes.toString('utf8', 0, itemsStart);
  const separator = itemSeparator(bytes, itemsStart, length);
  if (!separator || !headOpensDataItems(head)) return parseWhole(bytes, length);

  const items: unknown[] = [];
  let start = itemsStart;
  for (;;) {
    const piece = nextPiece(bytes, start, length, separator);
    if (piece === 'none') break;
    if (piece === 'failed') return parseWhole(bytes, length);
    for (let i = 0; i < piece.values.length; i++) items.push(piece.values[i]);
    start = piece.end + 1; // past the comma between two items
  }
  // All but the last item too, so that the rest, which is parsed twice below, is short.
  const last = lastPiece(bytes, start, length, separator);
  if (last) {
    for (let i = 0; i < last.values.length; i++) items.push(last.values[i]);
    start = last.end + 1;
  }
  // The rest (the last items and the envelope's end) with the head before it: the body without the
  // items already read. Parsed twice over a short text, the second time with an item 0 put first:
  // if the array that grows is `data.items`, the rest's items belong to the array the head opened
  // (and not, say, to a second "items" key that a parser would take instead).
  const rest = bytes.toString('utf8', start, length);
  const envelope = parseOrUndefined(head + rest);
  const probe = parseOrUndefined(`${head}0,${rest}`);
  const tail = dataItems(envelope);
  const probed = dataItems(probe);
  if (!tail || !probed || tail.length === 0 || probed.length !== tail.length + 1 || probed[0] !== 0)
    return parseWhole(bytes, length);
  for (let i = 0; i < tail.length; i++) items.push(tail[i]);
  (envelope as { data: { items: unknown[] } }).data.items = items;
  return envelope;
}

type Piece = { values: unknown[]; end: number } | 'none' | 'failed';

/**
 * The items from `start` up to a cut about PIECE_BYTES on, parsed as one array. `end` is the index of
 * the comma after the last of them. 'none' when no cut is left before the last piece.
 */
function nextPiece(bytes: Buffer, start: number, length: number, separator: Buffer): Piece {
  let cut = bytes.indexOf(separator, start + PIECE_BYTES);
  for (let tries = 0; tries < TRIES_PER_PIECE; tries++) {
    if (cut < 0 || cut + separator.length >= length) return tries === 0 ? 'none' : 'failed';
    const comma = cut + 1;
    const values = parseBetweenBrackets(bytes, start - 1, comma);
    if (values && values.length > 0) return { values, end: comma };
    cut = bytes.indexOf(separator, cut + 1);
  }
  return 'failed';
}

/** The items from `start` up to the last cut that parses (one of the last few), or undefined. */
function lastPiece(
  bytes: Buffer,
  start: number,
  length: number,
  separator: Buffer,
): { values: unknown[]; end: number } | undefined {
  let cut = bytes.lastIndexOf(separator, length - separator.length);
  for (let tries = 0; tries < TRIES_PER_PIECE && cut > start; tries++) {
    const values = parseBetweenBrackets(bytes, start - 1, cut + 1);
    if (values && values.length > 0) return { values, end: cut + 1 };
    cut = bytes.lastIndexOf(separator, cut - 1);
  }
  return undefined;
}

/** Bytes `from..to` (inclusive) read as `[` + the bytes between + `]`; the buffer is restored after. */
function parseBetweenBrackets(bytes: Buffer, from: number, to: number): unknown[] | undefined {
  const [before, after] = [bytes[from]!, bytes[to]!];
  bytes[from] = OPEN_BRACKET;
  bytes[to] = CLOSE_BRACKET;
  try {
    const value = parseOrUndefined(bytes.toString('utf8', from, to + 1));
    return Array.isArray(value) ? value : undefined;
  } finally {
    bytes[from] = before;
    bytes[to] = after;
  }
}

/**
 * `},{"<key>":` where <key> is the first item's first key: the bytes between two items of the same
 * shape, compact. Undefined when the first item is not an object written compactly.
 */
function itemSeparator(bytes: Buffer, itemsStart: number, length: number): Buffer | undefined {
  if (bytes[itemsStart] !== 0x7b /* { */ || bytes[itemsStart + 1] !== 0x22 /* " */) return undefined;
  const keyEnd = bytes.indexOf('":', itemsStart + 2);
  if (keyEnd < 0 || keyEnd - itemsStart > 64 || keyEnd >= length) return undefined;
  const key = bytes.subarray(itemsStart + 2, keyEnd);
  if (key.includes(0x5c /* \ */)) return undefined;
  return Buffer.concat([Buffer.from('},{"'), key, Buffer.from('":')]);
}

/** The head ends where `data.items` opens: closing it gives `data.items = []`, adding 0 gives `[0]`. */
function headOpensDataItems(head: string): boolean {
  const empty = dataItems(parseOrUndefined(`${head}]}}`));
  const one = dataItems(parseOrUndefined(`${head}0]}}`));
  return empty?.length === 0 && one?.length === 1 && one[0] === 0;
}

function dataItems(value: unknown): unknown[] | undefined {
  const data = value !== null && typeof value === 'object' ? (value as { data?: unknown }).data : undefined;
  const items = data !== null && typeof data === 'object' ? (data as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? items : undefined;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a body's text() and JSON.parse would do: UTF-8 with a leading byte order mark dropped. */
function parseWhole(bytes: Buffer, length: number): unknown {
  const hasBom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return JSON.parse(bytes.toString('utf8', hasBom ? 3 : 0, length));
}
