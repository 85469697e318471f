import {
  ESCAPE_TRIGGERS,
  scanPartedViews as scanParted,
  viewsPartAt as partsAt,
  type Found,
  type Match,
  type Stepper,
} from './decoded-view.js';
import { alphabetOf, type PatternAlphabet } from './pattern-alphabet.js';

// Local copies: a module loader that compiles imports to getters (tsx does) would otherwise put a
// function call on every character of the hot loop.
const triggers = ESCAPE_TRIGGERS;
const viewsPartAt = partsAt;
const scanPartedViews = scanParted;

/**
 * Aho–Corasick for large pattern sets: trie edges in one open-addressing hash table plus failure
 * links, so memory grows with the total length of the patterns, not with states × alphabet as the
 * dense DFA's does. A client that registers 100,000 connect-card tokens would need gigabytes for
 * the dense table; this one needs tens of megabytes and still scans the text once (amortised O(1)
 * per character: each failure step undoes an earlier forward step).
 */
export class SparsePatternMatcher {
  readonly #column: Uint16Array;
  readonly #columns: number;
  readonly #keys: Float64Array; // state * columns + column (may pass 2^31), -1 = empty slot
  readonly #values: Int32Array; // child state
  readonly #mask: number;
  readonly #fail: Int32Array;
  /** index+1 of the longest pattern ending in each state (own or inherited through failure links) */
  readonly #output: Int32Array;
  readonly #lengths: Int32Array;

  constructor(patterns: readonly string[], alphabet: PatternAlphabet = alphabetOf(patterns)) {
    this.#column = alphabet.column;
    this.#columns = alphabet.columns;
    let totalChars = 0;
    for (const pattern of patterns) totalChars += pattern.length;
    this.#lengths = Int32Array.from(patterns, (p) => p.length);
    let size = 1024;
    while (size < totalChars * 2) size *= 2;
    this.#mask = size - 1;
    this.#keys = new Float64Array(size).fill(-1);
    this.#values = new Int32Array(size);
    const capacity = totalChars + 1;
    const output = new Int32Array(capacity);
    // Each state's parent, the column of the edge into it and its depth: enough to visit the states
    // breadth-first (a counting sort by depth) without a JS array per state.
    const parent = new Int32Array(capacity);
    const edge = new Int32Array(capacity);
    const depth = new Int32Array(capacity);

    let states = 1;
    let maxDepth = 0;
    patterns.forEach((pattern, index) => {
      let state = 0;
      for (let i = 0; i < pattern.length; i++) {
        const column = this.#column[pattern.charCodeAt(i)]!;
        let next = this.#child(state, column);
        if (next < 0) {
          next = states++;
          this.#insert(state, column, next);
          parent[next] = state;
          edge[next] = column;
          depth[next] = i + 1;
          if (i + 1 > maxDepth) maxDepth = i + 1;
        }
        state = next;
      }
      if (pattern.length > 0 && (output[state] === 0 || this.#lengths[output[state]! - 1]! < pattern.length))
        output[state] = index + 1;
    });

    const startOfDepth = new Int32Array(maxDepth + 2);
    for (let state = 1; state < states; state++) startOfDepth[depth[state]! + 1]!++;
    for (let d = 1; d <= maxDepth + 1; d++) startOfDepth[d]! += startOfDepth[d - 1]!;
    const order = new Int32Array(states);
    for (let state = 1; state < states; state++) order[startOfDepth[depth[state]!]!++] = state;

    const fail = new Int32Array(states);
    for (let i = 0; i < states - 1; i++) {
      const state = order[i]!;
      if (depth[state] !== 1) {
        const column = edge[state]!;
        let f = fail[parent[state]!]!;
        let target = this.#child(f, column);
        while (target < 0 && f !== 0) {
          f = fail[f]!;
          target = this.#child(f, column);
        }
        fail[state] = target >= 0 ? target : 0;
      }
      const inherited = output[fail[state]!]!;
      if (
        inherited !== 0 &&
        (output[state] === 0 || this.#lengths[output[state]! - 1]! < this.#lengths[inherited - 1]!)
      )
        output[state] = inherited;
    }
    this.#fail = fail;
    this.#output = output.subarray(0, states);
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
      const next = this.#child(state, column);
      if (next >= 0) return next;
      if (state === 0) return 0;
      state = this.#fail[state]!;
    }
  }

  #child(state: number, column: number): number {
    const key = state * this.#columns + column;
    for (let slot = Math.imul(key, 0x9e3779b1) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const found = this.#keys[slot]!;
      if (found === key) return this.#values[slot]!;
      if (found === -1) return -1;
    }
  }

  #insert(state: number, column: number, child: number): void {
    const key = state * this.#columns + column;
    let slot = Math.imul(key, 0x9e3779b1) & this.#mask;
    while (this.#keys[slot] !== -1) slot = (slot + 1) & this.#mask;
    this.#keys[slot] = key;
    this.#values[slot] = child;
  }
}
