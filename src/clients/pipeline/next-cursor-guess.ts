import type { JsonBody } from '../transport/index.js';

/**
 * The `next_cursor` of a page, read from the end of its body before the body is parsed.
 *
 * Parsing a page of 1000 connectors takes ~4 ms, and the next page cannot be asked for until its
 * cursor is known. The real service and the emulator both end a page with `"next_cursor":"…"}}`, so
 * the cursor can be read from the last few hundred characters at once, and the service prepares page
 * n+1 while page n is parsed. It is a guess: the caller parses the page and uses the prefetched page
 * only when the guess equals the parsed cursor (a GET is safe to have sent for nothing).
 */

const TAIL = 2048;
/** `"next_cursor" : "<JSON string>" } }` at the very end of the body. */
const NEXT_CURSOR_AT_END = /"next_cursor"\s*:\s*"((?:[^"\\]|\\.)*)"\s*\}\s*\}\s*$/;

/** The guess from a page body as the client holds it: text, or bytes in a reused buffer, of which only the end is decoded. */
export function guessNextCursorOf(body: JsonBody): string | undefined {
  return guessNextCursor(
    typeof body === 'string' ? body : body.bytes.toString('utf8', Math.max(0, body.length - TAIL), body.length),
  );
}

export function guessNextCursor(body: string): string | undefined {
  const match = NEXT_CURSOR_AT_END.exec(body.length > TAIL ? body.slice(-TAIL) : body);
  if (!match) return undefined;
  const raw = match[1]!;
  if (!raw.includes('\\')) return raw || undefined;
  try {
    return (JSON.parse(`"${raw}"`) as string) || undefined;
  } catch {
    return undefined;
  }
}
