import { ESCAPE_TRIGGERS, decodeEscapeAt as decodeEscape, type Decoded } from './escape-decoding.js';

/**
 * The matchers scan two views of a text in the same left-to-right pass: the text as it is, and the
 * text with one layer of escaping undone (escape-decoding.ts). A secret that reaches the output
 * HTML-escaped, JSON-escaped by another program, quoted by util.inspect, or as a printed byte array,
 * is then found in the decoded view by the forms registered for the plain text, whatever mix of
 * escapes it arrives in — rather than by registering every combination (a secret with five
 * characters an escaper touches has hundreds of mixed HTML forms alone).
 *
 * Until the first escape the two views are the same characters, so the automaton's one state serves
 * both and the hot loop stays one table load per character. At an escape the views part: this scan
 * steps two states (one per view) until they are at the same place in the text in the same state;
 * from there on they see the same characters and cannot differ, and the hot loop takes over again.
 * A match in the decoded view is mapped back to the text: it starts where its first decoded
 * character's escape starts and ends after its last one's.
 */

/** One occurrence of a pattern in a text, in either view (the matchers' answer). */
export interface Match {
  start: number;
  end: number;
  /** Index of the pattern (the longest one ending at `end`). */
  pattern: number;
}

/** What the scan needs of an automaton: its steps and outputs, in the automaton's own state numbers. */
export interface Stepper {
  next(state: number, code: number): number;
  /** index + 1 of the longest pattern ending in `state`; 0 for none. */
  hit(state: number): number;
  patternLength(pattern: number): number;
}

/** Where matches go: `list` (made at the first one), or, for a yes/no question, nowhere (null: stop at the first). */
export interface Found {
  list: Match[] | null;
}

/** A local copy: see partedViewScan. */
const decodeEscapeAt = decodeEscape;

const scratch: Decoded = { first: 0, second: -1, length: 0, inBuffer: false, lead: 0 };

/** True when the character at `index` starts an escape, i.e. the two views part here. */
export function viewsPartAt(text: string, index: number): boolean {
  return decodeEscapeAt(text, index, scratch);
}

/**
 * Scans from `from`, where the views part, with both in `state`, until they meet again (or the text
 * ends). Returns the index to resume at, with the common state written to `resume.state`; -1 at the
 * first match when `found` is null.
 */
export function scanPartedViews(
  text: string,
  from: number,
  state: number,
  automaton: Stepper,
  found: Found | null,
  resume: { state: number },
): number {
  let plain = state;
  let decoded = state;
  let i = from; // next character of the plain view
  let j = from; // where the decoded view's next character (or escape) starts
  // Where each decoded character's escape starts, for a match's start. Before `from` the views were one.
  let units = 0;
  const n = text.length;
  // Inside an inspected Buffer the decoded view reads ` HH` as a byte, which the hot loop would not
  // notice: the views are not joined again before its end.
  let inBuffer = false;
  while (i < n || j < n) {
    if (j <= i && j < n) {
      let first: number;
      let second = -1;
      let origin = j;
      if (decodeEscapeAt(text, j, scratch, inBuffer)) {
        first = scratch.first;
        second = scratch.second;
        origin += scratch.lead;
        inBuffer = scratch.inBuffer;
        j += scratch.length;
      } else {
        first = text.charCodeAt(j);
        inBuffer = false;
        j++;
      }
      // One decoded character, or two (a surrogate pair from `&#x1F600;` or `\u{1F600}`).
      for (let code = first, left = second < 0 ? 1 : 2; left > 0; code = second, left--) {
        if (units === origins.length) origins = grow(origins);
        origins[units++] = origin;
        decoded = automaton.next(decoded, code);
        const hit = automaton.hit(decoded);
        if (hit === 0) continue;
        if (found === null) return -1;
        const k = units - automaton.patternLength(hit - 1);
        (found.list ??= []).push({ start: k >= 0 ? origins[k]! : from + k, end: j, pattern: hit - 1 });
      }
    } else {
      plain = automaton.next(plain, text.charCodeAt(i));
      i++;
      const hit = automaton.hit(plain);
      if (hit !== 0) {
        if (found === null) return -1;
        (found.list ??= []).push({ start: i - automaton.patternLength(hit - 1), end: i, pattern: hit - 1 });
      }
    }
    if (i === j && plain === decoded && !inBuffer) break;
  }
  resume.state = plain;
  return i;
}

/** The decoded characters' origins, reused from scan to scan (a scan is synchronous). */
let origins = new Int32Array(256);

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/**
 * What a matcher's hot loop calls here, in one object for it to copy into module constants: a module
 * loader that compiles imports to getters (tsx does) would otherwise put a function call on every
 * character of the loop.
 */
export const partedViewScan = { triggers: ESCAPE_TRIGGERS, viewsPartAt, scanPartedViews } as const;
