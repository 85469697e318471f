import { decodedText } from './escape-decoding.js';

/**
 * The shapes a secret takes on its way out of a process. A redactor that knows only the raw value
 * misses the base64 in a Basic header, the %-encoded password in a URL, the escaped quote in a JSON
 * body or one line of a PEM key. Each form here is registered beside the raw value.
 */

/** Lines of a PEM body shorter than this are too generic to redact on their own (e.g. a final "=="). */
const MIN_PEM_LINE = 16;

/**
 * The byte forms (hex, the first bytes of a Buffer) are registered for values of this many
 * characters and more: a shorter one's hex is an ordinary run of a few hex digits.
 */
const MIN_BYTE_FORM_VALUE = 8;
/**
 * ... and up to this many: a token or a password, not a PEM key or a JSON key file, whose hex would
 * be most of the automaton for a leak no one prints (their first bytes are a generic header).
 */
const MAX_BYTE_FORM_VALUE = 512;
/** util.inspect shows this many bytes of a Buffer (buffer.INSPECT_MAX_BYTES), then "... n more bytes". */
const INSPECTED_BYTES = 50;

export function derivedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  // Each form is computed on its own: one that cannot be computed must not cost the others, nor
  // the registration of the secrets after this one (see `safely`).
  const add = (form: () => string) => safely(form, (f) => forms.add(f));
  add(() => encodeURIComponent(wellFormed(value)));
  // application/x-www-form-urlencoded as encodeURIComponent users write it: spaces as '+'.
  add(() => encodeURIComponent(wellFormed(value)).replace(/%20/g, '+'));
  // The WHATWG form encoding (URLSearchParams, url.searchParams, fetch bodies) also encodes
  // ! ' ( ) ~, which encodeURIComponent leaves as they are.
  add(() => formEncode(value));
  // The WHATWG userinfo encoding (a password in a URL such as postgres://user:pass@host) leaves
  // $ & + , as they are, which encodeURIComponent encodes.
  add(() => userinfoEncode(value));
  add(() => JSON.stringify(value).slice(1, -1));
  // How the decoded view (escape-decoding.ts) reads the value itself, where that differs: a
  // backslash-quote in the secret, say, inside a text another family escaped.
  add(() => decodedText(value));
  add(() => Buffer.from(value, 'utf8').toString('base64'));
  add(() => Buffer.from(value, 'utf8').toString('base64url'));
  for (const line of pemBodyLines(value)) forms.add(line);
  for (const form of byteForms(value)) forms.add(form);
  return [...forms];
}
/**
 * The secret's bytes as programs print bytes. Hex (`Buffer#toString('hex')`, and upper case) is
 * registered; a printed byte array or `<Buffer 74 6f 6b …>`, in any layout, is read back into
 * bytes by the decoded view (escape-decoding.ts), as code units 0–255: that is the value itself for
 * an ASCII secret, and the latin1 reading of its UTF-8 bytes, registered here, for another.
 * util.inspect shows only a Buffer's first 50 bytes, so those are registered for a longer secret.
 */
export function byteForms(value: string): string[] {
  if (value.length < MIN_BYTE_FORM_VALUE || value.length > MAX_BYTE_FORM_VALUE) return [];
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const forms = [hex, hex.toUpperCase(), bytes.toString('latin1')];
  if (bytes.length > INSPECTED_BYTES) forms.push(bytes.subarray(0, INSPECTED_BYTES).toString('latin1'));
  return forms;
}

/** Forms of an HTTP Basic credential: the header carries base64("user:password"). */
export function basicCredentialForms(username: string, password: string): string[] {
  const pair = `${username}:${password}`;
  const forms: string[] = [];
  safely(
    () => Buffer.from(pair, 'utf8').toString('base64'),
    (f) => forms.push(f),
  );
  safely(
    () => encodeURIComponent(wellFormed(pair)),
    (f) => forms.push(f),
  );
  return forms;
}

/** Runs one form's computation; a form that throws is skipped, the rest go on. */
function safely(compute: () => string, use: (form: string) => void): void {
  let form: string;
  try {
    form = compute();
  } catch {
    return;
  }
  use(form);
}

/**
 * The value with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which the
 * ES2022 typings lack). encodeURIComponent throws a URIError on a lone surrogate; the UTF-8
 * encoders (Buffer, URL, URLSearchParams) write U+FFFD in its place, so that is the form that leaks.
 */
function wellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

function userinfoEncode(value: string): string {
  const url = new URL('http://host/');
  url.password = value;
  return url.password;
}

function pemBodyLines(value: string): string[] {
  if (!value.includes('-----BEGIN ')) return [];
  return value
    .split(/\r?\n|\\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_PEM_LINE && !line.startsWith('-----') && !line.includes(':'));
}
