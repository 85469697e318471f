import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SecretRegistry, derivedForms, redactedJson, redactedLine } from '../../src/secrets/index.js';
// internals: the registry's two matchers, compared with each other on the same text
import { MultiPatternMatcher } from '../../src/secrets/multi-pattern-matcher.js';
import { SparsePatternMatcher } from '../../src/secrets/sparse-pattern-matcher.js';
import { HOSTILE_SECRET, findLeaks } from '../helpers/leak-check.js';

/**
 * Issue 22: a secret leaves a process in forms nobody registered — escaped by an HTML or XML
 * writer, by JSON twice, quoted by util.inspect, printed as bytes — and each of them, in any mix,
 * must be redacted by the one pass, with the text around it left as it was.
 */

const htmlEscape = (t: string) =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const xmlAttribute = (t: string) =>
  t.replace(/&/g, '&#38;').replace(/"/g, '&#x22;').replace(/\t/g, '&#9;').replace(/\n/g, '&#xA;');
const goEscape = (t: string) => t.replace(/&/g, '&amp;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

const encodings: [string, (secret: string) => string][] = [
  ['raw', (s) => s],
  ['JSON', (s) => JSON.stringify({ token: s })],
  ['JSON twice', (s) => JSON.stringify({ message: JSON.stringify({ token: s }) })],
  ['util.inspect of an object', (s) => inspect({ token: s, nested: { again: s } })],
  ['util.inspect of a JSON text', (s) => inspect(JSON.stringify({ token: s }))],
  ['HTML (escape-html)', (s) => `<p>${htmlEscape(s)}</p>`],
  ['HTML (Go: numeric quotes)', (s) => `<p title="${goEscape(s)}">`],
  ['XML attribute (numeric, hex, white space)', (s) => `<Error Message="${xmlAttribute(s)}"/>`],
  ['HTML inside JSON', (s) => JSON.stringify({ body: `<Message>${htmlEscape(s)}</Message>` })],
  ['hex', (s) => `digest ${Buffer.from(s).toString('hex')} end`],
  ['upper-case hex', (s) => Buffer.from(s).toString('hex').toUpperCase()],
  ['an inspected Buffer', (s) => inspect(Buffer.from(s))],
  ['a Buffer in an inspected object', (s) => inspect({ body: Buffer.from(s) })],
  ['Buffer JSON', (s) => JSON.stringify({ body: Buffer.from(s) })],
  ['Buffer JSON, inspected (multi-line columns)', (s) => inspect(Buffer.from(s).toJSON())],
  ['a byte array, spaced', (s) => `[ ${[...Buffer.from(s)].join(', ')} ]`],
];

describe('the registry redacts escaped forms of a hostile secret', () => {
  for (const [name, encode] of encodings) {
    it(name, () => {
      const registry = new SecretRegistry();
      registry.register('token', HOSTILE_SECRET);
      const text = `before ${encode(HOSTILE_SECRET)} after`;
      expect(registry.contains(text)).toBe(true);
      const out = registry.redact(text);
      expect(findLeaks(HOSTILE_SECRET, [['redacted', out]])).toEqual([]);
      expect(out).toContain('<redacted:token>');
      expect(out.startsWith('before ')).toBe(true);
      expect(out.endsWith(' after')).toBe(true);
    });
  }

  it('a Buffer of a long secret, shown to its 50th byte by util.inspect', () => {
    const registry = new SecretRegistry();
    const long = `${HOSTILE_SECRET}${'k9'.repeat(40)}`;
    registry.register('token', long);
    const out = registry.redact(inspect(Buffer.from(long)));
    expect(out).toMatch(/^<Buffer <redacted:token> \.\.\. \d+ more bytes>$/);
  });

  it('leaves escapes and byte arrays without a secret as they were', () => {
    const registry = new SecretRegistry();
    registry.register('token', HOSTILE_SECRET);
    const text = 'GET /a?x=1&y=2 &amp; &#34;q&#34; \\"esc\\" [1, 2, 3] <Buffer 61 62> C:\\temp, done';
    expect(registry.redact(text)).toBe(text);
    expect(registry.contains(text)).toBe(false);
  });

  it('still finds a secret that holds a backslash sequence literally', () => {
    const registry = new SecretRegistry();
    registry.register('private_key', 'line-one\\nline-two\\u0041');
    expect(registry.redact('x line-one\\nline-two\\u0041 y')).toBe('x <redacted:private_key> y');
  });
});

describe.each([
  ['dense DFA', (p: string[]) => new MultiPatternMatcher(p)],
  ['sparse automaton', (p: string[]) => new SparsePatternMatcher(p)],
])('%s: the decoded view', (_name, compile) => {
  const matcher = compile(derivedForms(HOSTILE_SECRET));
  for (const [name, encode] of encodings) {
    it(`covers every character of the ${name} form`, () => {
      const encoded = encode(HOSTILE_SECRET);
      const text = `[${encoded}]`;
      const covered = new Uint8Array(text.length);
      for (const m of matcher.findAll(text) ?? []) covered.fill(1, m.start, m.end);
      const kept = [...text].filter((_, i) => covered[i] === 0).join('');
      expect(findLeaks(HOSTILE_SECRET, [['kept', kept]])).toEqual([]);
      expect(matcher.test(text)).toBe(true);
    });
  }
});

describe('redact first, then shape', () => {
  const registry = new SecretRegistry();
  registry.register('token', HOSTILE_SECRET);

  it('folds and cuts a message only after redacting it', () => {
    const echoed = `invalid token ${HOSTILE_SECRET} (see docs)`;
    expect(redactedLine(echoed, 200, registry)).toBe('invalid token <redacted:token> (see docs)');
    const cut = redactedLine(`${'x'.repeat(190)} ${HOSTILE_SECRET}`, 200, registry)!;
    expect(findLeaks(HOSTILE_SECRET, [['cut', cut]])).toEqual([]);
  });

  it('a secret made of single spaces is found again once white space is folded', () => {
    const spaced = new SecretRegistry();
    spaced.register('password', 'correct horse battery');
    expect(redactedLine('was correct\n   horse \t battery', 200, spaced)).toBe('was <redacted:password>');
  });

  it('encodes JSON after redacting, so a message that quotes an escaped secret stays valid and clean', () => {
    const message = `the server said ${JSON.stringify({ token: HOSTILE_SECRET })}`;
    const line = redactedJson(
      {
        level: 'ERROR',
        message,
        body: Buffer.from(HOSTILE_SECRET),
        bytes: new Uint8Array(Buffer.from(HOSTILE_SECRET)),
      },
      registry,
    );
    expect(findLeaks(HOSTILE_SECRET, [['line', line]])).toEqual([]);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed.message).toBe('the server said {"token":"<redacted:token>"}');
    expect(parsed.body).toBe('<redacted:token>');
    expect(parsed.bytes).toBe('<redacted:token>');
  });
});
