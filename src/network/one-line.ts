import { redactedLine, secrets } from '../secrets/index.js';

/**
 * A service's own words (an error body's message, S3's error message), made safe to put in one line
 * of ours: redacted first, then whitespace runs, line breaks included, folded to one space, and cut
 * at `max` characters (secrets/redact-then-shape.ts says why in that order).
 */
export function oneLine(text: unknown, max = 200): string | undefined {
  return redactedLine(text, max);
}

/**
 * The first line of an error's message, redacted before it is cut there (a secret with a line break
 * would otherwise leave its first line behind): for a log line about a failure whose details are
 * the library's.
 */
export function firstLineOf(error: unknown): string {
  return secrets.redact(error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
