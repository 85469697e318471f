/**
 * Paging cursors: opaque to clients, meaningful to the emulator. A cursor names the last key a page
 * returned and the collection it belongs to, base64url-encoded. It is not an offset: an offset skips
 * a record when an earlier one is deleted between pages and repeats one when a record is inserted.
 * A cursor for another collection, or one that does not decode, is refused (400), never guessed at.
 */

export interface CursorPosition {
  /** Which collection the cursor walks, e.g. `groups` or `connectors:<group_id>`. */
  scope: string;
  /** The last key the previous page returned. */
  after: string;
}

const VERSION = 1;

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([VERSION, position.scope, position.after]), 'utf8').toString('base64url');
}

/** The position, or undefined when the text is not a cursor of this scope. */
export function decodeCursor(text: string, scope: string): CursorPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(text)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [version, cursorScope, after] = value as unknown[];
    if (version !== VERSION || cursorScope !== scope || typeof after !== 'string') return undefined;
    return { scope, after };
  } catch {
    return undefined;
  }
}
