/**
 * One layer of the escaping other code puts on a secret before it is printed, undone one escape at a
 * time: the "decoded view" the matchers scan beside the text itself (decoded-view.ts).
 *
 * Families, each recognised by its first character, so the matchers' hot loop looks at a handful of
 * code units only:
 * - `\` — JSON and JavaScript string escapes, which is also how util.inspect quotes a string
 *   (`\"`, `\'`, `` \` ``, `\\`, `\/`, `\n` `\t` `\r` `\b` `\f` `\v` `\0`, `\xHH`, `\uHHHH`, `\u{H…}`);
 * - `&` — HTML and XML character references, named (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`, HTML's
 *   `&Tab;` `&NewLine;`, the upper-case forms HTML accepts) or numeric (`&#34;`, `&#x22;`), in any mix;
 * - `[` or `,`, blanks, then a number up to 255 — an element of a printed byte array, compact
 *   (Buffer's JSON, `[116,111,107]`) or spaced and over several lines (util.inspect's column layout),
 *   read as that byte;
 * - `<Buffer ` and each ` HH` after it — util.inspect's `<Buffer 74 6f 6b …>`, read as those bytes.
 * Bytes are read as the code units 0–255 (latin1): for an ASCII secret, its own characters; for
 * another, the form derived-forms.ts registers for its UTF-8 bytes. A character that starts none of
 * these stands for itself. Decoding is one layer deep: a secret escaped twice (JSON inside JSON)
 * reads as its once-escaped form, which is registered.
 */

const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;
const COMMA = 0x2c;
const BRACKET = 0x5b;
const LESS_THAN = 0x3c;
const SPACE = 0x20;
const SEMICOLON = 0x3b;
const BUFFER = '<Buffer ';

/**
 * code unit → 1 when it can start an escape. Every trigger is below 0x5d, so the hot loops' test
 * (`code < 0x5d && ESCAPE_TRIGGERS[code] === 1`) is one comparison for a letter, one load for the rest.
 */
export const ESCAPE_TRIGGERS = new Uint8Array(0x5d);
for (const code of [BACKSLASH, AMPERSAND, COMMA, BRACKET, LESS_THAN]) ESCAPE_TRIGGERS[code] = 1;

/** What one escape stands for: one or two UTF-16 code units, and how many characters of text it spans. */
export interface Decoded {
  first: number;
  /** The low surrogate of a code point above U+FFFF; -1 when the escape stands for one code unit. */
  second: number;
  length: number;
  /** A byte of an inspected Buffer: a ` HH` right after it is the next byte. */
  inBuffer: boolean;
  /** Characters of punctuation before the escape proper (`[`, `, `, `<Buffer `): left out of a redaction. */
  lead: number;
}

const SINGLE: Record<string, number> = {
  '"': 0x22,
  "'": 0x27,
  '`': 0x60,
  '\\': 0x5c,
  '/': 0x2f,
  n: 0x0a,
  t: 0x09,
  r: 0x0d,
  b: 0x08,
  f: 0x0c,
  v: 0x0b,
};

const NAMED = new Map<string, number>([
  ['amp', 0x26],
  ['AMP', 0x26],
  ['lt', 0x3c],
  ['LT', 0x3c],
  ['gt', 0x3e],
  ['GT', 0x3e],
  ['quot', 0x22],
  ['QUOT', 0x22],
  ['apos', 0x27],
  ['Tab', 0x09],
  ['NewLine', 0x0a],
]);

/** The longest reference read: `&#x10FFFF;` and `&NewLine;` are 10 and 9 characters. */
const MAX_REFERENCE = 10;

/**
 * The escape that starts at `index`, written into `out`; false when the character there starts none
 * (it then stands for itself). `inBuffer`: the character before was a byte of an inspected Buffer.
 * `out` is reused by the caller, so a scan allocates nothing per escape.
 */
export function decodeEscapeAt(text: string, index: number, out: Decoded, inBuffer = false): boolean {
  out.inBuffer = false;
  out.lead = 0;
  const code = text.charCodeAt(index);
  if (code === BACKSLASH) return backslash(text, index, out);
  if (code === AMPERSAND) return reference(text, index, out);
  if (code === COMMA || code === BRACKET) return arrayElement(text, index, out);
  if (code === LESS_THAN) return text.startsWith(BUFFER, index) && bufferByte(text, index + BUFFER.length, index, out);
  if (code === SPACE && inBuffer) return bufferByte(text, index + 1, index, out);
  return false;
}

function backslash(text: string, index: number, out: Decoded): boolean {
  const next = text[index + 1];
  if (next === undefined) return false;
  const single = SINGLE[next];
  if (single !== undefined) return set(out, single, 2);
  if (next === '0' && !/[0-9]/.test(text[index + 2] ?? '')) return set(out, 0, 2);
  if (next === 'x') return hexDigits(text, index + 2, 2, 2, out, 4);
  if (next !== 'u') return false;
  if (text[index + 2] !== '{') return hexDigits(text, index + 2, 4, 4, out, 6);
  const close = text.slice(index + 3, index + 10).indexOf('}') + index + 3;
  const count = close - (index + 3);
  if (count < 1 || count > 6) return false;
  return hexDigits(text, index + 3, count, count, out, close + 1 - index);
}

function reference(text: string, index: number, out: Decoded): boolean {
  // Bounded: a bare '&' (a query string's) must not cost a search through the rest of the text.
  const limit = Math.min(text.length, index + MAX_REFERENCE);
  let end = index + 1;
  while (end < limit && isReferenceCharacter(text.charCodeAt(end))) end++;
  if (end === index + 1 || text.charCodeAt(end) !== SEMICOLON) return false;
  const body = text.slice(index + 1, end);
  const length = end + 1 - index;
  if (body.startsWith('#x') || body.startsWith('#X'))
    return /^[0-9a-fA-F]{1,6}$/.test(body.slice(2)) && codePoint(parseInt(body.slice(2), 16), length, out);
  if (body.startsWith('#')) return /^[0-9]{1,7}$/.test(body.slice(1)) && codePoint(Number(body.slice(1)), length, out);
  const named = NAMED.get(body);
  return named !== undefined && set(out, named, length);
}

function isReferenceCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x23
  );
}

/** `[` or `,`, blanks, and a byte's decimal number (not the start of a longer number). */
function arrayElement(text: string, index: number, out: Decoded): boolean {
  let at = index + 1;
  while (at < text.length && isBlank(text.charCodeAt(at))) at++;
  let value = 0;
  let digits = 0;
  for (; digits < 3 && at < text.length; digits++, at++) {
    const code = text.charCodeAt(at);
    if (code < 0x30 || code > 0x39) break;
    value = value * 10 + (code - 0x30);
  }
  const after = text.charCodeAt(at);
  if (digits === 0 || value > 255 || (after >= 0x30 && after <= 0x39) || after === 0x2e) return false;
  set(out, value, at - index);
  out.lead = at - digits - index;
  return true;
}

/** Two lower-case hex digits at `from`, ending the Buffer or followed by its next byte. */
function bufferByte(text: string, from: number, index: number, out: Decoded): boolean {
  const pair = text.slice(from, from + 2);
  const after = text[from + 2];
  if (!/^[0-9a-f]{2}$/.test(pair) || (after !== ' ' && after !== '>')) return false;
  set(out, parseInt(pair, 16), from + 2 - index);
  out.inBuffer = true;
  out.lead = from - index;
  return true;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

/** `count` (min..max) hex digits at `from`, standing for one code point; the escape spans `length`. */
function hexDigits(text: string, from: number, min: number, max: number, out: Decoded, length: number): boolean {
  const digits = text.slice(from, from + max);
  if (digits.length < min || !/^[0-9a-fA-F]+$/.test(digits)) return false;
  return codePoint(parseInt(digits, 16), length, out);
}

function codePoint(value: number, length: number, out: Decoded): boolean {
  if (!(value >= 0 && value <= 0x10ffff)) return false;
  if (value <= 0xffff) return set(out, value, length);
  const offset = value - 0x10000;
  out.first = 0xd800 + (offset >> 10);
  out.second = 0xdc00 + (offset & 0x3ff);
  out.length = length;
  return true;
}

function set(out: Decoded, unit: number, length: number): true {
  out.first = unit;
  out.second = -1;
  out.length = length;
  return true;
}

/**
 * The whole text as the decoded view reads it. A secret whose own characters look like an escape
 * (a backslash before a quote) reads differently there when the text around it was escaped by
 * another family (an XML writer leaves its backslashes alone): this reading is registered too.
 */
export function decodedText(text: string): string {
  const out: Decoded = { first: 0, second: -1, length: 0, inBuffer: false, lead: 0 };
  let result = '';
  let inBuffer = false;
  for (let i = 0; i < text.length;) {
    if (decodeEscapeAt(text, i, out, inBuffer)) {
      result += String.fromCharCode(out.first) + (out.second >= 0 ? String.fromCharCode(out.second) : '');
      inBuffer = out.inBuffer;
      i += out.length;
    } else {
      result += text[i];
      inBuffer = false;
      i++;
    }
  }
  return result;
}

const ESCAPE_STARTS = ['\\', '&', ',', '[', '<'];
const probe: Decoded = { first: 0, second: -1, length: 0, inBuffer: false, lead: 0 };

/**
 * Whether any escape starts in the text, i.e. whether its decoded view differs from it anywhere:
 * each character that can start one is found by `indexOf` (native, far faster than a loop over
 * every character) and asked as the scan would ask it. A JSON line's many `,"` answer no at once.
 */
export function holdsEscape(text: string): boolean {
  for (const start of ESCAPE_STARTS)
    for (let at = text.indexOf(start); at !== -1; at = text.indexOf(start, at + 1))
      if (decodeEscapeAt(text, at, probe)) return true;
  return false;
}
