import { derivedForms } from './derived-forms.js';
import type { PatternMatcher } from './multi-pattern-matcher.js';
import { ScreenedMatcher } from './screened-matcher.js';

/**
 * Every secret value the process learns, with the forms derived from it, and the redactor over them.
 *
 * Redaction is one pass: all forms are compiled into one automaton (see multi-pattern-matcher.ts:
 * a dense DFA for the usual handful of secrets, a sparse one when thousands are registered) and the
 * text is scanned once, whatever the number of secrets. Overlapping matches are merged, so
 * a secret that overlaps another is still hidden whole. The automaton is rebuilt lazily after a
 * registration, so registering many secrets in a row costs one compile.
 */

/** Shorter values would turn ordinary words into noise; they are reported as too short instead. */
export const MIN_SECRET_LENGTH = 4;

export class SecretRegistry {
  /** form → label (the configuration key it came from) */
  readonly #labels = new Map<string, string>();
  #matcher: Compiled | null = null;
  readonly #tooShort = new Set<string>();
  #generation = 0;

  /** Registers a secret and all its derived forms under a label (usually the configuration key). */
  register(label: string, value: string): void {
    if (typeof value !== 'string' || value.length === 0) return;
    if (value.length < MIN_SECRET_LENGTH) {
      this.#tooShort.add(label);
      return;
    }
    for (const form of derivedForms(value)) this.#add(label, form);
  }

  /** Registers extra forms computed elsewhere (e.g. base64 of `user:password`, an access token). */
  registerForms(label: string, forms: Iterable<string>): void {
    for (const form of forms) if (form.length >= MIN_SECRET_LENGTH) this.#add(label, form);
  }

  /** Labels whose values were too short to redact safely (the config layer warns about them). */
  get tooShort(): ReadonlySet<string> {
    return this.#tooShort;
  }

  get size(): number {
    return this.#labels.size;
  }

  /** Changes whenever a form is registered or forgotten: a text checked before is not checked since. */
  get generation(): number {
    return this.#generation;
  }

  redact(text: string): string {
    if (this.#labels.size === 0 || text.length === 0) return text;
    const { forms, automaton } = this.#compiled();
    const matches = automaton.findAll(text);
    if (matches === null) return text;
    // Matches arrive ordered by end; the earliest start among overlapping ones opens the span.
    matches.sort((x, y) => x.start - y.start || y.end - x.end);
    let out = '';
    let cursor = 0;
    let i = 0;
    while (i < matches.length) {
      const first = matches[i]!;
      let end = first.end;
      for (i++; i < matches.length && matches[i]!.start < end; i++) end = Math.max(end, matches[i]!.end);
      out += text.slice(cursor, first.start) + `<redacted:${this.#labels.get(forms[first.pattern]!)}>`;
      cursor = end;
    }
    return out + text.slice(cursor);
  }

  /** Whether this exact form is registered. */
  has(form: string): boolean {
    return this.#labels.has(form);
  }

  /** True when any registered form occurs in the text (used to refuse a state that holds a secret). */
  contains(text: string): boolean {
    if (this.#labels.size === 0 || text.length === 0) return false;
    return this.#compiled().automaton.test(text);
  }

  /**
   * Whether any registered form could occur in the text of a number or a BigInt (it is made only
   * of digits, signs, `.`, `e`, and the letters of Infinity and NaN): when none can, numbers need
   * no look (the warehouse's guard skips them, 2 of 5 values in a typical row).
   */
  mayOccurInNumbers(): boolean {
    if (this.#labels.size === 0) return false;
    return (this.#compiled().numeric ??= this.#compiled().forms.some((form) => /^[-+.0-9eEInfityNa]+$/.test(form)));
  }

  /**
   * Whether JSON built from values already found clean (strings and names by `contains`, numbers,
   * booleans, null and dates left out as the row guard leaves them out), between copies of the
   * given constant text, is clean too, so that it needs no scan of its own. It is when no form holds
   * a character JSON writes between or inside values (a quote, an escape, punctuation: then none
   * can straddle a value and what is around it), none is made only of the characters of a number,
   * a date, `true`, `false` or `null`, and the constant text holds none.
   */
  cleanAroundCheckedValues(constant: string): boolean {
    if (this.#labels.size === 0) return true;
    const compiled = this.#compiled();
    compiled.around ??= new Map();
    let clean = compiled.around.get(constant);
    if (clean === undefined) {
      clean =
        !compiled.forms.some((form) => JSON_PUNCTUATION.test(form) || UNCHECKED_VALUE.test(form)) &&
        !compiled.automaton.test(`${constant} true false null`);
      compiled.around.set(constant, clean);
    }
    return clean;
  }

  /** The labels of the secrets a text contains, for an error that says which key leaked. */
  labelsIn(text: string): string[] {
    if (this.#labels.size === 0) return [];
    const { forms, automaton } = this.#compiled();
    return [...new Set((automaton.findAll(text) ?? []).map((m) => this.#labels.get(forms[m.pattern]!)!))];
  }

  /**
   * Forgets the given forms (exact texts registered before). For a long-running host that mirrors
   * each call's secrets here and lets them go when no running call holds them any more, so the
   * process-wide registry does not grow with every access token it has ever seen.
   */
  forget(forms: Iterable<string>): void {
    let changed = false;
    for (const form of forms) if (this.#labels.delete(form)) changed = true;
    if (changed) {
      this.#matcher = null;
      this.#generation++;
    }
  }

  /** Forgets everything; for tests and for a process that runs several configurations in turn. */
  clear(): void {
    this.#labels.clear();
    this.#tooShort.clear();
    this.#matcher = null;
    this.#generation++;
  }

  #add(label: string, form: string): void {
    if (this.#labels.has(form)) return;
    this.#labels.set(form, label);
    this.#matcher = null;
    this.#generation++;
  }

  #compiled(): Compiled {
    if (this.#matcher === null) {
      const forms = [...this.#labels.keys()];
      this.#matcher = { forms, automaton: new ScreenedMatcher(forms) };
    }
    return this.#matcher;
  }
}

interface Compiled {
  forms: string[];
  automaton: PatternMatcher;
  numeric?: boolean;
  /** cleanAroundCheckedValues' answers, per constant text. */
  around?: Map<string, boolean>;
}

/** What JSON.stringify writes between values and inside a string's escapes. */
const JSON_PUNCTUATION = /["\\,:{}[\]]/;
/** A form made only of these could sit inside a number, a date's ISO text, true, false or null. */
const UNCHECKED_VALUE = /^[-+.0-9eEInfityNaTZ:truefalsn]+$/;

/** The process-wide registry: what the logger, the error printer and the state writer consult. */
export const secrets = new SecretRegistry();
