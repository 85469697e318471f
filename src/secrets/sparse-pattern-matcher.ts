import { partedViewScan, type Found, type Match, type Stepper } from './decoded-view.js';
import { alphabetOf, type PatternAlphabet } from './pattern-alphabet.js';
import { keepLongest, patternTrie, type PatternTrie, type TrieEdges } from './pattern-trie.js';

// Module constants, not imports, in the hot loop: see partedViewScan.
const { triggers, viewsPartAt, scanPartedViews } = partedViewScan;

/**
 * Aho–Corasick for large pattern sets: trie edges in one open-addressing hash table plus failure
 * links, so memory grows with the total length of the patterns, not with states × alphabet as the
 * dense DFA's does. A client that registers 100,000 connect-card tokens would need gigabytes for
 * the dense table; this one needs tens of megabytes and still scans the text once (amortised O(1)
 * per character: each failure step undoes an earlier forward step).
 */
export class SparsePatternMatcher {
  readonly #column: Uint16Array;
  readonly #edges: TrieEdges;
  readonly #fail: Int32Array;
  /** index+1 of the longest pattern ending in each state (own or inherited through failure links) */
  readonly #output: Int32Array;
  readonly #lengths: Int32Array;

  constructor(patterns: readonly string[], alphabet: PatternAlphabet = alphabetOf(patterns)) {
    const trie = patternTrie(patterns, alphabet);
    this.#column = alphabet.column;
    this.#edges = trie.edges;
    this.#lengths = trie.lengths;
    this.#fail = failureLinks(trie);
    this.#output = trie.output.subarray(0, trie.states);
  }

  /** As the dense automaton's: both views of the text (decoded-view.ts) in one pass. */
  findAll(text: string): Match[] | null {
    const found = this.#found;
    found.list = null;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x5d && triggers[code] === 1 && viewsPartAt(text, i)) {
        i = scanPartedViews(text, i, state, this.#stepper, found, this.#resume) - 1;
        state = this.#resume.state;
        continue;
      }
      state = this.#step(state, this.#column[code]!);
      const hit = this.#output[state]!;
      if (hit !== 0) {
        const length = this.#lengths[hit - 1]!;
        (found.list ??= []).push({ start: i + 1 - length, end: i + 1, pattern: hit - 1 });
      }
    }
    const matches = found.list;
    found.list = null;
    return matches;
  }

  test(text: string): boolean {
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
      state = this.#step(state, this.#column[code]!);
      if (this.#output[state] !== 0) return true;
    }
    return false;
  }

  readonly #stepper: Stepper = {
    next: (state, code) => this.#step(state, this.#column[code]!),
    hit: (state) => this.#output[state]!,
    patternLength: (pattern) => this.#lengths[pattern]!,
  };
  readonly #resume = { state: 0 };
  readonly #found: Found = { list: null };

  #step(state: number, column: number): number {
    if (column === 0) return 0; // a character no pattern contains
    for (;;) {
      const next = this.#edges.child(state, column);
      if (next >= 0) return next;
      if (state === 0) return 0;
      state = this.#fail[state]!;
    }
  }
}

/** Each state's failure state, breadth-first; a state inherits the longest output of its failure state. */
function failureLinks({ states, edges, order, parent, edge, depth, output, lengths }: PatternTrie): Int32Array {
  const fail = new Int32Array(states);
  for (let i = 0; i < order.length; i++) {
    const state = order[i]!;
    if (depth[state] !== 1) {
      const column = edge[state]!;
      let f = fail[parent[state]!]!;
      let target = edges.child(f, column);
      while (target < 0 && f !== 0) {
        f = fail[f]!;
        target = edges.child(f, column);
      }
      fail[state] = target >= 0 ? target : 0;
    }
    keepLongest(output, lengths, state, output[fail[state]!]!);
  }
  return fail;
}
