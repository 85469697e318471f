import { BlockShiftMatcher, blockShiftMatcher } from './block-shift-matcher.js';
import { holdsEscape } from './escape-decoding.js';
import { compilePatterns, type PatternMatcher } from './multi-pattern-matcher.js';
import type { Match } from './decoded-view.js';

/**
 * The cheap questions asked of a text before the automaton reads it, one character at a time:
 *
 * - shorter than the shortest form: it holds none, in either view (a decoded view is never longer
 *   than its text). Most values the row guard looks at (a name, an id, a date) end here.
 * - no escape in it (one native `indexOf` per character that can start one): its decoded view is the
 *   text itself, so the block-shift scan, which jumps over most of the text, finds what the automaton
 *   would (block-shift-matcher.ts), when the forms are long enough for it to pay.
 * - otherwise the automaton, which reads both views in one pass.
 */
export class ScreenedMatcher implements PatternMatcher {
  readonly #automaton: PatternMatcher;
  readonly #shortest: number;
  readonly #jumps: BlockShiftMatcher | undefined;

  constructor(patterns: readonly string[]) {
    this.#automaton = compilePatterns(patterns);
    let shortest = Infinity;
    for (const pattern of patterns) if (pattern.length < shortest) shortest = pattern.length;
    this.#shortest = shortest;
    this.#jumps = blockShiftMatcher(patterns, shortest);
  }

  findAll(text: string): Match[] | null {
    if (text.length < this.#shortest) return null;
    if (this.#jumps !== undefined && !holdsEscape(text)) return this.#jumps.findAll(text);
    return this.#automaton.findAll(text);
  }

  test(text: string): boolean {
    if (text.length < this.#shortest) return false;
    if (this.#jumps !== undefined && !holdsEscape(text)) return this.#jumps.test(text);
    return this.#automaton.test(text);
  }
}
