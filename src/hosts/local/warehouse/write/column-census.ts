/**
 * What one column of a run holds, counted in one pass before it is staged: how many numbers,
 * bigints, booleans, strings and dates, whether the numbers are integers and their range, and whether
 * the bigints fit INT64.
 */
import { INT64_MAX, INT64_MIN, TWO_POW_63, isValidDate } from '../base/index.js';

/** What a column holds, counted in one pass over its values. */
export interface ColumnCensus {
  numbers: number;
  /** every number is an integer below 2^63 in magnitude */
  integers: boolean;
  /** the smallest and largest number (Infinity and -Infinity when there is none) */
  min: number;
  max: number;
  bigints: number;
  /** every bigint fits INT64 */
  int64: boolean;
  booleans: number;
  strings: number;
  dates: number;
  nonNull: number;
}

/** Counts a column's values by kind; an invalid Date fails the column. */
export function takeCensus(source: unknown[], fail: (message: string) => never): ColumnCensus {
  const census: ColumnCensus = {
    numbers: 0,
    integers: true,
    min: Infinity,
    max: -Infinity,
    bigints: 0,
    int64: true,
    booleans: 0,
    strings: 0,
    dates: 0,
    nonNull: 0,
  };
  for (let i = 0; i < source.length; i++) {
    const value = source[i];
    if (value === undefined || value === null) continue;
    census.nonNull++;
    switch (typeof value) {
      case 'number':
        census.numbers++;
        if (value < census.min) census.min = value;
        if (value > census.max) census.max = value;
        if (census.integers && !(Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63))
          census.integers = false;
        break;
      case 'bigint':
        census.bigints++;
        if (value < INT64_MIN || value > INT64_MAX) census.int64 = false;
        break;
      case 'boolean':
        census.booleans++;
        break;
      case 'string':
        census.strings++;
        break;
      case 'object':
        if (value instanceof Date) {
          if (!isValidDate(value)) fail('an invalid Date cannot be stored');
          census.dates++;
        }
        break;
    }
  }
  return census;
}
