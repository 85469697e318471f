/**
 * The alphabet of a pattern set: each UTF-16 code unit that occurs in a pattern gets a column
 * 1..columns-1; column 0 is "in no pattern", which always leads back towards the root. Both automata
 * (dense and sparse) index their tables by it, and compilePatterns sizes the dense table from it.
 */
export interface PatternAlphabet {
  /** code unit → column */
  readonly column: Uint16Array;
  /** Number of columns, the "in no pattern" column included. */
  readonly columns: number;
}

export function alphabetOf(patterns: readonly string[]): PatternAlphabet {
  const column = new Uint16Array(65536);
  let columns = 1;
  for (const pattern of patterns)
    for (let i = 0; i < pattern.length; i++) {
      const code = pattern.charCodeAt(i);
      if (column[code] === 0) column[code] = columns++;
    }
  return { column, columns };
}
