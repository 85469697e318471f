import type { PatternAlphabet } from './pattern-alphabet.js';

/**
 * What both automata build first, the dense DFA (multi-pattern-matcher.ts) and the sparse one
 * (sparse-pattern-matcher.ts): the trie of the patterns, each state's parent, edge and depth, and the
 * states in breadth-first order, which failure links are computed in (a state's failure state is
 * shallower, so it is complete by then). They differ in how they follow failure links afterwards:
 * the sparse one through the trie's own edges, the dense one in a complete table.
 */

/**
 * The trie's edges in one open-addressing hash table: memory in proportion to the patterns' total
 * length, not to states × alphabet. The sparse automaton scans with it; the dense one copies it into
 * its table.
 */
export class TrieEdges {
  readonly #columns: number;
  readonly #keys: Float64Array; // state * columns + column (may pass 2^31), -1 = empty slot
  readonly #values: Int32Array; // child state
  readonly #mask: number;

  constructor(columns: number, mostEdges: number) {
    let size = 1024;
    while (size < mostEdges * 2) size *= 2; // at most half full: probes stay short
    this.#columns = columns;
    this.#mask = size - 1;
    this.#keys = new Float64Array(size).fill(-1);
    this.#values = new Int32Array(size);
  }

  /** The child of `state` along `column`, or -1 when there is none. */
  child(state: number, column: number): number {
    const key = state * this.#columns + column;
    for (let slot = Math.imul(key, 0x9e3779b1) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const found = this.#keys[slot]!;
      if (found === key) return this.#values[slot]!;
      if (found === -1) return -1;
    }
  }

  add(state: number, column: number, child: number): void {
    const key = state * this.#columns + column;
    let slot = Math.imul(key, 0x9e3779b1) & this.#mask;
    while (this.#keys[slot] !== -1) slot = (slot + 1) & this.#mask;
    this.#keys[slot] = key;
    this.#values[slot] = child;
  }
}

export interface PatternTrie {
  readonly states: number;
  readonly edges: TrieEdges;
  /** Per state: index+1 of the longest pattern ending there (0 = none); room for mostStates entries. */
  readonly output: Int32Array;
  /** Per pattern: its length. */
  readonly lengths: Int32Array;
  readonly parent: Int32Array;
  /** Per state: the column of the edge into it. */
  readonly edge: Int32Array;
  readonly depth: Int32Array;
  /** The states but the root, shallowest first. */
  readonly order: Int32Array;
}

/** The most states a trie of these patterns can have: the root and one per character. */
export function mostStates(patterns: readonly string[]): number {
  let states = 1;
  for (const pattern of patterns) states += pattern.length;
  return states;
}

export function patternTrie(patterns: readonly string[], alphabet: PatternAlphabet): PatternTrie {
  const capacity = mostStates(patterns);
  const edges = new TrieEdges(alphabet.columns, capacity - 1);
  const lengths = Int32Array.from(patterns, (p) => p.length);
  const output = new Int32Array(capacity);
  // Parent, edge and depth per state: enough to visit the states breadth-first (a counting sort by
  // depth) without a JS array per state.
  const parent = new Int32Array(capacity);
  const edge = new Int32Array(capacity);
  const depth = new Int32Array(capacity);
  let states = 1;
  let maxDepth = 0;
  patterns.forEach((pattern, index) => {
    let state = 0;
    for (let i = 0; i < pattern.length; i++) {
      const column = alphabet.column[pattern.charCodeAt(i)]!;
      let next = edges.child(state, column);
      if (next < 0) {
        next = states++;
        edges.add(state, column, next);
        parent[next] = state;
        edge[next] = column;
        depth[next] = i + 1;
        if (i + 1 > maxDepth) maxDepth = i + 1;
      }
      state = next;
    }
    if (pattern.length > 0) keepLongest(output, lengths, state, index + 1);
  });
  return { states, edges, output, lengths, parent, edge, depth, order: breadthFirst(depth, states, maxDepth) };
}

/**
 * A state reports the longest pattern that ends in it: its own, or one inherited from its failure
 * state (so a pattern that ends inside a longer one is still seen). `candidate` is index+1, 0 = none.
 */
export function keepLongest(output: Int32Array, lengths: Int32Array, state: number, candidate: number): void {
  if (candidate !== 0 && (output[state] === 0 || lengths[output[state]! - 1]! < lengths[candidate - 1]!))
    output[state] = candidate;
}

/** States 1..states-1 sorted by depth (a counting sort). */
function breadthFirst(depth: Int32Array, states: number, maxDepth: number): Int32Array {
  const startOfDepth = new Int32Array(maxDepth + 2);
  for (let state = 1; state < states; state++) startOfDepth[depth[state]! + 1]!++;
  for (let d = 1; d <= maxDepth + 1; d++) startOfDepth[d]! += startOfDepth[d - 1]!;
  const order = new Int32Array(states - 1);
  for (let state = 1; state < states; state++) order[startOfDepth[depth[state]!]!++] = state;
  return order;
}
