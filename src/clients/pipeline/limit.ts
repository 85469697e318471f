import { InvalidRequestError } from '../transport/index.js';

/** Section 4.7 rule 5 and section 8: page sizes are whole numbers from 1 to 1000, default 100. */
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;

/** Checked before any request, so a bad limit costs no round trip and changes nothing. */
export function checkLimit(limit: unknown): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit === 'number' && Number.isInteger(limit) && limit >= MIN_LIMIT && limit <= MAX_LIMIT) return limit;
  throw new InvalidRequestError(
    `limit must be a whole number from ${MIN_LIMIT} to ${MAX_LIMIT}; got ${describeValue(limit)}`,
    {
      code: 'invalid_limit',
      key: 'limit',
      hint: `pass a limit from ${MIN_LIMIT} to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
    },
  );
}

/** A limit given as text (CLI flag): digits only, so "1e3", "10.0" and " 5" are refused, not guessed. */
export function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return checkLimit(/^\d{1,7}$/.test(text) ? Number(text) : text);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  if (typeof value === 'number') return String(value);
  return typeof value;
}
