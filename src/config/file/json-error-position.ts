/**
 * Where a JSON text first goes wrong, as line and column. V8's own message quotes the surrounding
 * input (which may be a password), so it is never shown; this small scanner finds the spot instead.
 * It only runs after JSON.parse has already failed.
 */
export interface TextPosition {
  line: number;
  column: number;
  /** What was expected or found, without quoting the input. */
  problem: string;
}

export function jsonErrorPosition(text: string): TextPosition {
  const scanner = new JsonScanner(text);
  const problem = scanner.scan();
  const before = text.slice(0, scanner.offset);
  const line = before.split('\n').length;
  const column = scanner.offset - before.lastIndexOf('\n');
  return { line, column, problem };
}

/** A recursive-descent pass over JSON text that stops, at its offset, where the text goes wrong. */
class JsonScanner {
  readonly #text: string;
  offset = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** What is wrong with the text (scanning stops at its offset). */
  scan(): string {
    try {
      if (this.#text.charCodeAt(0) === 0xfeff) this.offset = 1;
      this.#value();
      this.#space();
      if (this.offset < this.#text.length) this.#fail('unexpected text after the end of the JSON value');
    } catch (error) {
      return (error as Error).message;
    }
    return 'invalid JSON';
  }

  #fail(problem: string): never {
    throw Object.assign(new Error(problem), { offset: this.offset });
  }

  #space(): void {
    const text = this.#text;
    while (this.offset < text.length && ' \t\n\r'.includes(text[this.offset]!)) this.offset++;
  }

  #value(): void {
    this.#space();
    const c = this.#text[this.offset];
    if (c === '{') return this.#object();
    if (c === '[') return this.#array();
    if (c === '"') return this.#string();
    if (c === 't') return this.#literal('true');
    if (c === 'f') return this.#literal('false');
    if (c === 'n') return this.#literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.#number();
    this.#fail(c === undefined ? 'unexpected end of file' : 'unexpected character (strings need double quotes)');
  }

  #literal(word: string): void {
    if (!this.#text.startsWith(word, this.offset)) this.#fail(`invalid literal`);
    this.offset += word.length;
  }

  #string(): void {
    const text = this.#text;
    this.offset++; // opening quote
    while (this.offset < text.length) {
      const c = text[this.offset]!;
      if (c === '"') return void this.offset++;
      if (c === '\\') this.#escape();
      else if (c < ' ') this.#fail('unescaped control character (e.g. a raw line break) in a string');
      else this.offset++;
    }
    this.#fail('unterminated string');
  }

  #escape(): void {
    const text = this.#text;
    const e = text[this.offset + 1];
    if (e === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.offset + 2, this.offset + 6)))
        this.#fail('invalid \\u escape in a string');
      this.offset += 6;
    } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.offset += 2;
    else this.#fail('invalid escape in a string');
  }

  #number(): void {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.#text.slice(this.offset));
    if (!m) this.#fail('invalid number');
    this.offset += m[0].length;
  }

  #object(): void {
    const text = this.#text;
    this.offset++;
    this.#space();
    if (text[this.offset] === '}') return void this.offset++;
    for (;;) {
      this.#space();
      if (text[this.offset] !== '"')
        this.#fail(text[this.offset] === '}' ? 'trailing comma before }' : 'expected a "quoted" key');
      this.#string();
      this.#space();
      if (text[this.offset] !== ':') this.#fail('expected : after a key');
      this.offset++;
      this.#value();
      this.#space();
      if (text[this.offset] === ',') this.offset++;
      else if (text[this.offset] === '}') return void this.offset++;
      else this.#fail('expected , or } (a missing comma?)');
    }
  }

  #array(): void {
    const text = this.#text;
    this.offset++;
    this.#space();
    if (text[this.offset] === ']') return void this.offset++;
    for (;;) {
      this.#value();
      this.#space();
      if (text[this.offset] === ',') this.offset++;
      else if (text[this.offset] === ']') return void this.offset++;
      else this.#fail('expected , or ]');
    }
  }
}
