import { describe, expect, it } from 'vitest';
import { SecretRegistry, basicCredentialForms, derivedForms } from '../../src/secrets/index.js';
// internals: the registry's two matchers, compared with each other on the same text
import { MultiPatternMatcher } from '../../src/secrets/multi-pattern-matcher.js';
import { SparsePatternMatcher } from '../../src/secrets/sparse-pattern-matcher.js';

describe('SecretRegistry', () => {
  it('redacts the raw value and its derived forms, labelled with the key', () => {
    const r = new SecretRegistry();
    const value = 'p@ss w0rd/"quoted"';
    r.register('password', value);
    const forms = [
      value,
      encodeURIComponent(value),
      encodeURIComponent(value).replace(/%20/g, '+'),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString('base64'),
      Buffer.from(value).toString('base64url'),
    ];
    for (const form of forms) {
      const out = r.redact(`before ${form} after`);
      expect(out).toBe('before <redacted:password> after');
    }
  });

  it('redacts the base64 of user:password registered by Basic auth', () => {
    const r = new SecretRegistry();
    r.registerForms('password', basicCredentialForms('alice', 'hunter22'));
    const header = `Authorization: Basic ${Buffer.from('alice:hunter22').toString('base64')}`;
    expect(r.redact(header)).toBe('Authorization: Basic <redacted:password>');
  });

  it('redacts each PEM body line on its own', () => {
    const r = new SecretRegistry();
    const body = [
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
      'VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDu',
    ];
    r.register('private_key', `-----BEGIN PRIVATE KEY-----\n${body.join('\n')}\n-----END PRIVATE KEY-----`);
    expect(r.redact(`leaked: ${body[1]}`)).toBe('leaked: <redacted:private_key>');
  });

  it('prefers the longest match and merges overlapping secrets into one span', () => {
    const r = new SecretRegistry();
    r.register('short', 'abcdef');
    r.register('long', 'abcdefghij');
    expect(r.redact('x abcdefghij y')).toBe('x <redacted:long> y');
    r.register('overlap', 'ghijklmn');
    expect(r.redact('abcdefghijklmn')).toBe('<redacted:long>');
  });

  it('finds many secrets in one pass, including adjacent ones', () => {
    const r = new SecretRegistry();
    const values = Array.from({ length: 100 }, (_, i) => `secret-value-${i}-${'x'.repeat(i % 7)}`);
    values.forEach((v, i) => r.register(`k${i}`, v));
    const text = values.join('') + ' and ' + values.slice(0, 10).join(' ');
    const out = r.redact(text);
    for (const v of values) expect(out).not.toContain(v);
    expect(r.contains(text)).toBe(true);
    expect(r.contains('nothing here')).toBe(false);
  });

  it('leaves values shorter than 4 characters alone and reports them', () => {
    const r = new SecretRegistry();
    r.register('pin', '123');
    expect(r.redact('a 123 b')).toBe('a 123 b');
    expect([...r.tooShort]).toEqual(['pin']);
  });

  it('says whether any secret could occur in the text of a number', () => {
    const registry = new SecretRegistry();
    expect(registry.mayOccurInNumbers()).toBe(false);
    registry.register('token', 'tok_live_abc');
    expect(registry.mayOccurInNumbers()).toBe(false);
    registry.register('pin', '4829');
    expect(registry.mayOccurInNumbers()).toBe(true);
    const other = new SecretRegistry();
    other.register('exponent', '1e+21'); // String(1e21)
    expect(other.mayOccurInNumbers()).toBe(true);
    other.clear();
    other.register('word', 'Infinity');
    expect(other.mayOccurInNumbers()).toBe(true);
  });

  it('names the keys whose values a text holds', () => {
    const r = new SecretRegistry();
    r.register('token', 'tok-123456');
    r.register('password', 'pw-abcdef');
    expect(r.labelsIn('{"a":"tok-123456","b":"pw-abcdef"}').sort()).toEqual(['password', 'token']);
  });

  it('handles non-ASCII secrets and text', () => {
    const r = new SecretRegistry();
    r.register('password', 'pässwörd✓');
    expect(r.redact('→ pässwörd✓ ←')).toBe('→ <redacted:password> ←');
  });

  it("redacts the WHATWG form encoding (URLSearchParams encodes ! ' ( ) ~) and the URL userinfo encoding", () => {
    const r = new SecretRegistry();
    const secret = "p@ss!w0rd'(x)~* $&+,";
    r.register('password', secret);
    const search = new URL('https://h/');
    search.searchParams.set('p', secret);
    const userinfo = new URL('https://h/');
    userinfo.username = 'u';
    userinfo.password = secret;
    const leaks = [
      new URLSearchParams({ password: secret }).toString(),
      search.href,
      userinfo.href,
      `postgres://u:${encodeURIComponent(secret)}@h/db`,
      JSON.stringify(JSON.stringify({ p: secret })).slice(1, -1),
    ];
    for (const text of leaks) {
      expect(r.contains(text), text).toBe(true);
      expect(r.redact(text), text).toContain('<redacted:password>');
    }
  });

  it('a lone surrogate in a secret neither throws nor stops the secrets registered after it', () => {
    const r = new SecretRegistry();
    const lone = 'tok\uD800en-1234';
    expect(() => r.register('broken', lone)).not.toThrow();
    r.register('token', 'tok-after-1234');
    expect(r.redact('x tok-after-1234 y')).toBe('x <redacted:token> y');
    expect(r.redact(`x ${lone} y`)).toBe('x <redacted:broken> y');
    // What URL and form encoders write for it: U+FFFD, %-encoded.
    expect(r.contains(new URLSearchParams({ t: lone }).toString())).toBe(true);
    expect(r.contains(Buffer.from(lone).toString('base64'))).toBe(true);
    expect(() => basicCredentialForms('user\uDC00', 'pass-1234')).not.toThrow();
    expect(basicCredentialForms('user\uDC00', 'pass-1234')).toContain(encodeURIComponent('user\uFFFD:pass-1234'));
  });
});

describe.each([
  ['dense DFA', (p: string[]) => new MultiPatternMatcher(p)],
  ['sparse automaton', (p: string[]) => new SparsePatternMatcher(p)],
])('%s', (_name, compile) => {
  it('forgets the forms it is given, and only those', () => {
    const r = new SecretRegistry();
    r.register('token', 'first-secret-value');
    r.register('password', 'second-secret-value');
    const size = r.size;
    r.forget(derivedForms('first-secret-value'));
    expect(r.redact('a first-secret-value b second-secret-value')).toBe('a first-secret-value b <redacted:password>');
    expect(r.contains('first-secret-value')).toBe(false);
    expect(r.size).toBeLessThan(size);
    // Forgetting what is not there changes nothing.
    r.forget(['never-registered']);
    expect(r.redact('second-secret-value')).toBe('<redacted:password>');
  });

  it('agrees with a naive search on random input', () => {
    const alphabet = 'abcab';
    const rand = (n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
    for (let round = 0; round < 50; round++) {
      const patterns = Array.from({ length: 5 }, () => rand(2 + Math.floor(Math.random() * 3)));
      const text = rand(200);
      const matcher = compile(patterns);
      const matches = matcher.findAll(text) ?? [];
      const found = new Map(matches.map((m) => [m.end, m.end - m.start]));
      for (let end = 1; end <= text.length; end++) {
        const ending = patterns.filter((p) => text.slice(0, end).endsWith(p));
        expect(found.has(end)).toBe(ending.length > 0);
        if (ending.length) expect(found.get(end)).toBe(Math.max(...ending.map((p) => p.length)));
      }
      expect(matcher.test(text)).toBe(matches.length > 0);
    }
  });
});

describe('many registered secrets', () => {
  // How fast, against a naive look in the same run: `npm run bench -- redaction` (redaction_100k_secrets_*).
  // Compiling the automaton of 100,000 tokens takes seconds on a loaded 2-core machine: the timeout
  // is there for a hang only.
  it('redacts with 100,000 tokens registered and stays small (the sparse automaton takes over)', () => {
    const r = new SecretRegistry();
    const tokens = Array.from({ length: 100_000 }, (_, i) => `cct_${i.toString(36)}_${(i * 7919).toString(36)}xyz`);
    for (const t of tokens) r.register('connect_card.token', t);
    const before = process.memoryUsage().rss;
    const out = r.redact(`first ${tokens[0]} middle ${tokens[54_321]} last ${tokens[99_999]}`);
    expect(out).toBe(
      'first <redacted:connect_card.token> middle <redacted:connect_card.token> last <redacted:connect_card.token>',
    );
    expect((process.memoryUsage().rss - before) / 1e6).toBeLessThan(800);
  }, 120_000);
});

describe('cleanAroundCheckedValues and generation (issue 43: checked RECORD lines skip the scan)', () => {
  const HEAD = '{"type":"RECORD","record":{"stream":"items","data":,"emitted_at":';
  it('is clean for ordinary tokens, and not once a form could straddle JSON or hide where the guard does not look', () => {
    const cases: [string, boolean][] = [
      ['tok_2f9a8b7c6d5e4f3a', true],
      ['pa"ss-word-1', false], // a quote: may straddle a value and the JSON around it
      ['a,b:c-value', false],
      ['back\\slash-value', false],
      ['90817263', false], // digits: may sit inside a number the guard does not read
      ['2026-01-01T00', false], // inside a date's ISO text
      ['stream', false], // in the constant text itself
    ];
    for (const [value, clean] of cases) {
      const registry = new SecretRegistry();
      registry.register('key', value);
      expect(registry.cleanAroundCheckedValues(HEAD), value).toBe(clean);
    }
  });
  it('changes its generation on every registration, forgetting and clearing', () => {
    const registry = new SecretRegistry();
    const seen = [registry.generation];
    registry.register('a', 'first-secret-value');
    seen.push(registry.generation);
    registry.register('a', 'first-secret-value');
    expect(registry.generation).toBe(seen[1]);
    registry.forget(['first-secret-value']);
    seen.push(registry.generation);
    registry.clear();
    seen.push(registry.generation);
    expect(new Set(seen).size).toBe(4);
  });
});
