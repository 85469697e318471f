import { ConnectorError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * No secret in what a destination stores: a row (or a table name) that holds a registered secret is
 * refused (exit 1) instead of being written where no redactor reaches.
 *
 * The guard looks at what a destination stores, not at the value as JavaScript prints it: strings as
 * their text, numbers as a whole secret only, objects as the JSON a destination writes (see
 * `storedTexts`), bytes decoded, and the table and column names, which become identifiers. A value it
 * cannot see that way is refused too: unchecked is not allowed through.
 */
export class RowGuard {
  readonly #registry: SecretRegistry;
  /**
   * Table and column names repeat on every row: each is checked once, and again only when a new
   * secret has been registered since (a rotated token).
   */
  readonly #cleanNames = new Set<string>();
  /** The column names of recent rows by position, each found clean: a row of the same shape is checked by comparing names. */
  readonly #cleanByPosition: string[] = [];
  #namesCheckedAt = -1;
  /**
   * Whether a secret could hide in a number's text at all (a numeric PIN): usually not, and then
   * numbers are not turned into text to be looked at (measured: a third of the guard's time).
   */
  #numbersMayHold = true;
  #numbersCheckedAt = -1;

  constructor(registry: SecretRegistry) {
    this.#registry = registry;
  }

  table(table: string): void {
    const registry = this.#registry;
    if (registry.size === 0 || typeof table !== 'string') return;
    if (!this.#nameIsClean(table)) throw this.#refuse(`table '${registry.redact(table)}'`, table);
  }

  row(table: string, row: Record<string, unknown>): void {
    const registry = this.#registry;
    if (registry.size === 0) return;
    this.table(table);
    // Not an object: nothing to look into; the destination refuses it on its own.
    if (row === null || typeof row !== 'object') return;
    if (this.#numbersCheckedAt !== registry.size) {
      this.#numbersMayHold = registry.mayOccurInNumbers();
      this.#numbersCheckedAt = registry.size;
    }
    const cleanByPosition = this.#cleanByPosition;
    let position = 0;
    for (const column in row) {
      if (!Object.hasOwn(row, column)) continue;
      const value = row[column];
      if (cleanByPosition[position] !== column || this.#namesCheckedAt !== registry.size) {
        if (!this.#nameIsClean(column)) throw this.#refuse(`${this.#where(table, column)} (its name)`, column);
        cleanByPosition[position] = column;
      }
      position++;
      // Stored without any text of their own (storedTexts says the same, without its allocation).
      if (value === null || value === undefined || typeof value === 'boolean' || value instanceof Date) continue;
      if (typeof value === 'number' || typeof value === 'bigint') {
        if (this.#numbersMayHold) this.#number(table, column, value);
        continue;
      }
      if (typeof value === 'string') {
        if (registry.contains(value)) throw this.#refuse(this.#where(table, column), value);
        continue;
      }
      this.#structured(table, column, value);
    }
  }

  /**
   * A number is refused only when it is a secret whole (a numeric PIN written as a number): digits of
   * a secret inside a longer number (an id, an amount) are a coincidence, not a leak.
   */
  #number(table: string, column: string, value: number | bigint): void {
    const text = String(value);
    if (this.#registry.contains(text) && /^<redacted:[^>]+>$/.test(this.#registry.redact(text)))
      throw this.#refuse(this.#where(table, column), text);
  }

  /** An object, an array or bytes: the texts it is stored as. */
  #structured(table: string, column: string, value: unknown): void {
    const texts = storedTexts(value);
    if (texts === undefined) {
      throw new ConnectorError(
        `refusing to write ${this.#where(table, column)}: its value cannot be serialized to JSON, so it cannot be checked for secrets`,
        {
          code: 'row_value_not_serializable',
          hint: 'give the column a string, number, boolean, Date, Uint8Array or a JSON-serializable object or array',
        },
      );
    }
    for (const text of texts) if (this.#registry.contains(text)) throw this.#refuse(this.#where(table, column), text);
  }

  #nameIsClean(name: string): boolean {
    const registry = this.#registry;
    if (this.#namesCheckedAt !== registry.size) {
      this.#cleanNames.clear();
      this.#cleanByPosition.length = 0;
      this.#namesCheckedAt = registry.size;
    }
    if (this.#cleanNames.has(name)) return true;
    if (registry.contains(name)) return false;
    this.#cleanNames.add(name);
    return true;
  }

  /** The place, for a refusal only (redacting a name costs more than checking it). */
  #where(table: string, column: string): string {
    return `table '${this.#registry.redact(table)}' column '${this.#registry.redact(column)}'`;
  }

  /** Names go into messages through the redactor: the name itself may be what is refused. */
  #refuse(what: string, text: string): ConnectorError {
    const keys = this.#registry.labelsIn(text).map((k) => `'${k}'`);
    return new ConnectorError(
      `refusing to write ${what}: it holds the value of secret configuration key(s) ${keys.join(', ')}`,
      { code: 'secret_in_row', hint: 'do not copy credentials into synced rows' },
    );
  }
}

/**
 * How an object or array value of a row is written as JSON: a BigInt becomes its decimal text. The
 * warehouse (src/hosts/local/warehouse/values.ts) writes with it and the guard checks with it, so the two
 * cannot differ (a nested BigInt once made the guard's JSON.stringify throw while the warehouse's
 * succeeded).
 */
export function rowJsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The texts in which a column value that is neither a string nor a number (the guard checks those
 * itself) reaches the warehouse file, or undefined when it cannot be serialized (the warehouse
 * refuses those too; the guard refuses them first, unchecked).
 */
export function storedTexts(value: unknown): string[] | undefined {
  switch (typeof value) {
    case 'object': {
      if (value === null || value instanceof Date) return [];
      // Bytes are stored as a BLOB, not as JSON: what they spell is what must be checked.
      const bytes = binaryBytes(value);
      if (bytes !== undefined) return decodings(bytes);
      const texts: string[] = [];
      let json: string | undefined;
      try {
        json = JSON.stringify(value, (key, member: unknown) => {
          // Bytes nested in an object are stored as numbers ({"type":"Buffer","data":[…]} from
          // Buffer's toJSON, {"0":…} for a plain Uint8Array): still the secret, one step removed.
          const nested = binaryBytes(member) ?? bufferJsonBytes(member);
          if (nested !== undefined) texts.push(...decodings(nested));
          return rowJsonReplacer(key, member);
        });
      } catch {
        return undefined;
      }
      if (json === undefined) return undefined;
      texts.push(json);
      return texts;
    }
    default:
      // boolean, undefined (skipped), function and symbol (the warehouse refuses them).
      return [];
    // string, number and bigint do not come here: the guard compares them itself.
  }
}

function binaryBytes(value: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return undefined;
}

/** The shape Buffer.prototype.toJSON gives, which is what a replacer sees for a nested Buffer. */
function bufferJsonBytes(value: unknown): Uint8Array | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { type, data } = value as { type?: unknown; data?: unknown };
  if (type !== 'Buffer' || !Array.isArray(data) || !data.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    return undefined;
  return Uint8Array.from(data as number[]);
}

/** Bytes as text both ways a reader may take them: UTF-8 (invalid sequences replaced) and latin1. */
function decodings(bytes: Uint8Array): string[] {
  return [
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'),
  ];
}
