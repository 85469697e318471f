/**
 * A service's own words (an error body's message, S3's error message), made safe to put in one line
 * of ours: whitespace runs, line breaks included, folded to one space, and cut at `max` characters.
 */
export function oneLine(text: unknown, max = 200): string | undefined {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The first line of an error's message: for a log line about a failure whose details are the library's. */
export function firstLineOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
