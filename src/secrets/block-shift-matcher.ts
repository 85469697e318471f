import type { Match } from './decoded-view.js';

/**
 * Finds every occurrence of many literal strings without reading every character (Wu–Manber): a
 * window as long as the shortest pattern slides over the text, and the last three characters under
 * it say how far it may jump before any pattern could end inside it. With a hundred secrets of 30
 * characters or more, most windows jump by twenty or more, so a log line costs a handful of table
 * loads instead of one per character. Only the plain view: a text with an escape in it is left to the
 * automata, which read the decoded view beside it (decoded-view.ts).
 *
 * It pays only for long patterns and a sparse table: `blockShiftMatcher` gives undefined otherwise
 * (a four-character secret, or thousands of tokens whose blocks fill the table), and the automaton
 * does all the work, as before.
 */

/** Characters hashed per step. Three keeps a hundred secrets' blocks from filling the table. */
const BLOCK = 3;
const TABLE_BITS = 16;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
/** Below this shortest length the jumps are too short to beat one table load per character. */
const MIN_SHORTEST = 12;
/** Above this share of the table's slots taken by a pattern's blocks, most windows would not jump. */
const MAX_FILL = 0.35;

export class BlockShiftMatcher {
  readonly #patterns: readonly string[];
  readonly #shortest: number;
  /** hash of a block → how far a window ending in it may move (capped at 255). */
  readonly #shift: Uint8Array;
  /** hash of the block that ends a pattern's first `shortest` characters → those patterns' indexes. */
  readonly #candidates: Map<number, number[]>;

  constructor(patterns: readonly string[], shortest: number) {
    this.#patterns = patterns;
    this.#shortest = shortest;
    const most = Math.min(255, shortest - BLOCK + 1);
    this.#shift = new Uint8Array(TABLE_MASK + 1).fill(most);
    this.#candidates = new Map();
    patterns.forEach((pattern, index) => {
      for (let end = BLOCK - 1; end < shortest; end++) {
        const slot = hash(pattern, end);
        const shift = shortest - 1 - end;
        if (shift < this.#shift[slot]!) this.#shift[slot] = shift;
      }
      const slot = hash(pattern, shortest - 1);
      const list = this.#candidates.get(slot);
      if (list) list.push(index);
      else this.#candidates.set(slot, [index]);
    });
  }

  /** Every occurrence (overlapping ones included) in no particular order; null when none. */
  findAll(text: string): Match[] | null {
    let matches: Match[] | null = null;
    const shifts = this.#shift;
    const shortest = this.#shortest;
    for (let end = shortest - 1; end < text.length;) {
      const slot = hash(text, end);
      const shift = shifts[slot]!;
      if (shift !== 0) {
        end += shift;
        continue;
      }
      const start = end - shortest + 1;
      for (const index of this.#candidates.get(slot) ?? NONE) {
        const pattern = this.#patterns[index]!;
        if (text.startsWith(pattern, start))
          (matches ??= []).push({ start, end: start + pattern.length, pattern: index });
      }
      end++;
    }
    return matches;
  }

  test(text: string): boolean {
    const shifts = this.#shift;
    const shortest = this.#shortest;
    for (let end = shortest - 1; end < text.length;) {
      const slot = hash(text, end);
      const shift = shifts[slot]!;
      if (shift !== 0) {
        end += shift;
        continue;
      }
      const start = end - shortest + 1;
      for (const index of this.#candidates.get(slot) ?? NONE)
        if (text.startsWith(this.#patterns[index]!, start)) return true;
      end++;
    }
    return false;
  }
}

const NONE: readonly number[] = [];

/** The block of BLOCK characters ending at `end`, hashed to a table slot. */
function hash(text: string, end: number): number {
  return ((text.charCodeAt(end - 2) << 10) ^ (text.charCodeAt(end - 1) << 5) ^ text.charCodeAt(end)) & TABLE_MASK;
}

/** The matcher when it pays (long patterns, a sparse table), else undefined. */
export function blockShiftMatcher(patterns: readonly string[], shortest: number): BlockShiftMatcher | undefined {
  if (patterns.length === 0 || shortest < MIN_SHORTEST) return undefined;
  const blocks = patterns.length * (shortest - BLOCK + 1);
  if (blocks > MAX_FILL * (TABLE_MASK + 1)) return undefined;
  return new BlockShiftMatcher(patterns, shortest);
}
