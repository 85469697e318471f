/**
 * Request headers with the WHATWG `Headers` surface (case-insensitive names, values combined with
 * ", ", iteration in sorted lower-case order, `Set-Cookie` kept apart), for every request the
 * project builds. Node's global Headers is part of its bundled undici, whose first use evaluates
 * all of it: 17–25 ms and 9 MB of a REST connector's start for a map of a few strings. Anything
 * that takes a Headers takes this, and it takes any HeadersInit (a real Headers too).
 */
export class HeaderList implements Headers {
  /** lower-case name → its values, in the order they were appended */
  readonly #values = new Map<string, string[]>();

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('a header must be a [name, value] pair');
        this.append(pair[0]!, pair[1]!);
      }
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
      if (typeof value === 'string') this.append(name, value);
      else for (const each of value) this.append(name, each);
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const normalized = checkedValue(key, value);
    const values = this.#values.get(key);
    if (values) values.push(normalized);
    else this.#values.set(key, [normalized]);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    this.#values.set(key, [checkedValue(key, value)]);
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name))?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    for (const key of [...this.#values.keys()].sort()) {
      const values = this.#values.get(key)!;
      if (key === 'set-cookie') for (const value of values) yield [key, value];
      else yield [key, values.join(', ')];
    }
  }

  *keys(): HeadersIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}

type HeadersIterator<T> = Generator<T, undefined, unknown>;

/** RFC 9110's token characters, as Headers accepts in a name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What no header value may hold (a way to smuggle a header or a request in). */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

function checkedName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`'${name}' is not a valid header name`);
  return name.toLowerCase();
}

/** Leading and trailing whitespace trimmed, as Headers does; never echoed, since a value may be a secret. */
function checkedValue(key: string, value: string): string {
  const trimmed = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (FORBIDDEN_IN_VALUE.test(trimmed)) throw new TypeError(`the value of header '${key}' holds a NUL or line break`);
  return trimmed;
}
