import { describe, expect, it } from 'vitest';
import { derivedForms } from '../../src/secrets/index.js';
// internals: the matchers behind the registry, tested alone
import { compilePatterns } from '../../src/secrets/multi-pattern-matcher.js';
import { ScreenedMatcher } from '../../src/secrets/screened-matcher.js';
import type { Match } from '../../src/secrets/decoded-view.js';

/**
 * The screened matcher (too short: nothing; no escape: the block-shift scan; else the automaton)
 * must hide exactly the characters the automaton alone hides, in every text: it only takes
 * shortcuts. Texts are made of words, commas, brackets, forms of the secrets, their JSON and HTML
 * escapings and printed bytes, from a seeded generator so a failure repeats.
 */

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Which characters the matches cover: what a redaction replaces. */
function covered(text: string, matches: Match[] | null): string {
  const marks = new Uint8Array(text.length);
  for (const m of matches ?? []) marks.fill(1, Math.max(0, m.start), m.end);
  return Array.from(marks).join('');
}

const escapings = [
  (s: string) => s,
  (s: string) => JSON.stringify(s).slice(1, -1),
  (s: string) => s.replace(/[a-f]/g, (c) => `&#${c.charCodeAt(0)};`),
  (s: string) => `[${[...Buffer.from(s)].join(', ')}]`,
  (s: string) => s.slice(0, Math.floor(s.length / 2)),
];
const fillers = [
  'GET /v1/items ',
  'status 200, ',
  '"ok" ',
  'a&b=1 ',
  '[12, 300] ',
  '<Buffer 61 62> ',
  '\\n',
  ' , 7',
  'x',
];

function texts(secretsOf: string[], random: () => number, count: number): string[] {
  const out: string[] = [];
  for (let t = 0; t < count; t++) {
    let text = '';
    const parts = 1 + Math.floor(random() * 12);
    for (let p = 0; p < parts; p++) {
      if (random() < 0.3) {
        const forms = derivedForms(secretsOf[Math.floor(random() * secretsOf.length)]!);
        const form = forms[Math.floor(random() * forms.length)]!;
        text += escapings[Math.floor(random() * escapings.length)]!(form);
      } else text += fillers[Math.floor(random() * fillers.length)]!;
    }
    out.push(text);
  }
  return out;
}

function secretOf(random: () => number, length: number): string {
  const alphabet = 'abcdefABCDEF0123456789-_+/=:"\\&<>,[ ]é';
  let value = '';
  for (let i = 0; i < length; i++) value += alphabet[Math.floor(random() * alphabet.length)];
  return value;
}

describe('the screened matcher against the automaton alone', () => {
  it.each([
    ['long secrets (the block-shift scan)', 20, 40],
    ['short secrets (the automaton)', 30, 6],
    ['mixed lengths', 40, 0],
  ])('%s hide the same characters', (_name, count, length) => {
    const random = generator(count * 1000 + length);
    const values = Array.from({ length: count }, () => secretOf(random, length || 4 + Math.floor(random() * 60)));
    const forms = [...new Set(values.flatMap((v) => derivedForms(v)))].filter((f) => f.length >= 4);
    const screened = new ScreenedMatcher(forms);
    const automaton = compilePatterns(forms);
    for (const text of texts(values, random, 3000)) {
      expect(covered(text, screened.findAll(text)), text).toBe(covered(text, automaton.findAll(text)));
      expect(screened.test(text), text).toBe(automaton.test(text));
    }
  });
});
