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
  let i = 0;
  const fail = (problem: string): never => {
    throw Object.assign(new Error(problem), { offset: i });
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail(`invalid literal`));
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('invalid \\u escape in a string');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('invalid escape in a string');
      } else if (c < ' ') fail('unescaped control character (e.g. a raw line break) in a string');
      else i++;
    }
    fail('unterminated string');
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail('invalid number');
    i += m![0].length;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === 't') return void literal('true');
    if (c === 'f') return void literal('false');
    if (c === 'n') return void literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail(c === undefined ? 'unexpected end of file' : 'unexpected character (strings need double quotes)');
  };
  const object = () => {
    i++;
    space();
    if (text[i] === '}') return void i++;
    for (;;) {
      space();
      if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma before }' : 'expected a "quoted" key');
      string();
      space();
      if (text[i] !== ':') fail('expected : after a key');
      i++;
      value();
      space();
      if (text[i] === ',') i++;
      else if (text[i] === '}') return void i++;
      else fail('expected , or } (a missing comma?)');
    }
  };
  const array = () => {
    i++;
    space();
    if (text[i] === ']') return void i++;
    for (;;) {
      value();
      space();
      if (text[i] === ',') i++;
      else if (text[i] === ']') return void i++;
      else fail('expected , or ]');
    }
  };
  let problem = 'invalid JSON';
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    space();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
  } catch (error) {
    problem = (error as Error).message;
  }
  const before = text.slice(0, i);
  const line = before.split('\n').length;
  const column = i - before.lastIndexOf('\n');
  return { line, column, problem };
}
