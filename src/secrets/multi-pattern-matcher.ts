import { partedViewScan, type Found, type Match, type Stepper } from './decoded-view.js';
import { alphabetOf, type PatternAlphabet } from './pattern-alphabet.js';
import { keepLongest, mostStates, patternTrie, type PatternTrie } from './pattern-trie.js';
import { SparsePatternMatcher } from './sparse-pattern-matcher.js';

// Module constants, not imports, in the hot loop: see partedViewScan.
const { triggers, viewsPartAt, scanPartedViews } = partedViewScan;

/**
 * Finds every occurrence of many literal strings in one left-to-right pass (Aho–Corasick), compiled
 * to a dense DFA in typed arrays: the hot loop is one table load per UTF-16 code unit, whatever the
 * number of patterns. A regular-expression alternation of the same strings backtracks per pattern;
 * a loop of `replaceAll` scans the text once per pattern. The same pass also reads the text with one
 * layer of escaping undone (decoded-view.ts): the hot loop pays one comparison per character for it.
 */

export class MultiPatternMatcher {
  /** code unit → alphabet column; 0 is "in no pattern", which always leads back towards the root. */
  readonly #column: Uint16Array;
  readonly #columns: number;
  /**
   * transitions[state * columns + column] = next state * columns, pre-multiplied so the loop needs no
   * multiply; stored bit-inverted (negative) when the next state ends a pattern, so the common path is
   * one load and one sign test.
   */
  readonly #transitions: Int32Array;
  /** For each state: index+1 of the longest pattern ending here (0 = none). */
  readonly #output: Int32Array;
  readonly #lengths: Int32Array;

  constructor(patterns: readonly string[], alphabet: PatternAlphabet = alphabetOf(patterns)) {
    const columns = alphabet.columns;
    this.#column = alphabet.column;
    this.#columns = columns;
    const trie = patternTrie(patterns, alphabet);
    this.#lengths = trie.lengths;
    const transitions = completeTransitions(columns, trie);
    premultiply(transitions, columns, trie.output);
    this.#transitions = transitions;
    this.#output = trie.output.slice(0, trie.states);
  }

  /**
   * All matches, each the longest pattern ending at its position, in order of their end (in each
   * view); `null` when there is none, so the common case (a log line without a secret) allocates nothing.
   */
  findAll(text: string): Match[] | null {
    let matches: Match[] | null = null;
    const column = this.#column;
    const transitions = this.#transitions;
    const output = this.#output;
    const columns = this.#columns;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x5d && triggers[code] === 1 && viewsPartAt(text, i)) {
        const found = this.#found;
        found.list = matches;
        i = scanPartedViews(text, i, state, this.#stepper, found, this.#resume) - 1;
        matches = found.list;
        found.list = null;
        state = this.#resume.state;
        continue;
      }
      state = transitions[state + column[code]!]!;
      if (state < 0) {
        state = ~state;
        const hit = output[state / columns]!;
        const length = this.#lengths[hit - 1]!;
        (matches ??= []).push({ start: i + 1 - length, end: i + 1, pattern: hit - 1 });
      }
    }
    return matches;
  }

  /** True at the first occurrence; stops scanning there. */
  test(text: string): boolean {
    const column = this.#column;
    const transitions = this.#transitions;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x5d && triggers[code] === 1 && viewsPartAt(text, i)) {
        const resume = scanPartedViews(text, i, state, this.#stepper, null, this.#resume);
        if (resume < 0) return true;
        i = resume - 1;
        state = this.#resume.state;
        continue;
      }
      state = transitions[state + column[code]!]!;
      if (state < 0) return true;
    }
    return false;
  }

  /** The automaton one step at a time, for the stretches where the two views differ. */
  get #stepper(): Stepper {
    return (this.#steps ??= new DenseSteps(
      this.#transitions,
      this.#column,
      this.#output,
      this.#columns,
      this.#lengths,
    ));
  }
  #steps: DenseSteps | undefined;
  readonly #resume = { state: 0 };
  readonly #found: Found = { list: null };
}

/**
 * The DFA's table (next state, not yet pre-multiplied): the trie's edges, then failure links,
 * breadth-first, turn it into a complete DFA: a missing edge leads where the
 * failure state's edge leads (its row is complete: it is shallower), and a state inherits the longest
 * output of its failure state.
 */
function completeTransitions(columns: number, trie: PatternTrie): Int32Array {
  const { order, parent, edge, depth, output, lengths } = trie;
  const table = new Int32Array(trie.states * columns).fill(-1);
  for (let state = 1; state < trie.states; state++) table[parent[state]! * columns + edge[state]!] = state;
  const fail = new Int32Array(trie.states);
  for (let column = 0; column < columns; column++) if (table[column] === -1) table[column] = 0;
  for (let i = 0; i < order.length; i++) {
    const state = order[i]!;
    if (depth[state]! > 1) fail[state] = table[fail[parent[state]!]! * columns + edge[state]!]!;
    keepLongest(output, lengths, state, output[fail[state]!]!);
    const row = state * columns;
    const failRow = fail[state]! * columns;
    for (let column = 0; column < columns; column++)
      if (table[row + column] === -1) table[row + column] = table[failRow + column]!;
  }
  return table;
}

/**
 * Next states as the hot loop reads them: pre-multiplied by `columns` (no multiply in the loop), and
 * bit-inverted (negative) when the next state ends a pattern.
 */
function premultiply(table: Int32Array, columns: number, output: Int32Array): void {
  for (let i = 0; i < table.length; i++) {
    const next = table[i]!;
    table[i] = output[next] === 0 ? next * columns : ~(next * columns);
  }
}

/** The dense automaton's steps with plain fields (a monomorphic call in the scan of parted views). */
class DenseSteps implements Stepper {
  constructor(
    readonly transitions: Int32Array,
    readonly column: Uint16Array,
    readonly output: Int32Array,
    readonly columns: number,
    readonly lengths: Int32Array,
  ) {}

  next(state: number, code: number): number {
    const next = this.transitions[state + this.column[code]!]!;
    return next < 0 ? ~next : next;
  }

  hit(state: number): number {
    return this.output[state / this.columns]!;
  }

  patternLength(pattern: number): number {
    return this.lengths[pattern]!;
  }
}

/** What the registry needs from either automaton. */
export interface PatternMatcher {
  findAll(text: string): Match[] | null;
  test(text: string): boolean;
}

/**
 * Above this many dense-table entries (states × alphabet; 32 MiB of Int32) the sparse automaton is
 * used instead: a few secrets from configuration.json stay on the fastest path, while thousands of
 * registered tokens cost memory in proportion to their length.
 */
export const DENSE_TABLE_BUDGET = 8 * 1024 * 1024;

export function compilePatterns(patterns: readonly string[]): PatternMatcher {
  const alphabet = alphabetOf(patterns);
  return mostStates(patterns) * alphabet.columns <= DENSE_TABLE_BUDGET
    ? new MultiPatternMatcher(patterns, alphabet)
    : new SparsePatternMatcher(patterns, alphabet);
}
