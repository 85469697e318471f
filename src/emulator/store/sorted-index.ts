/**
 * Values kept in the order of their string keys, so a page is a binary search plus a slice: O(log n +
 * limit) per page whatever the total, and a cursor that names the last key seen stays meaningful when
 * keys before or after it are added or removed. Inserting in key order (a generated data set, a bench)
 * is an append.
 */
export class SortedIndex<V> {
  readonly #keys: string[] = [];
  readonly #values: V[] = [];

  get size(): number {
    return this.#keys.length;
  }

  get(key: string): V | undefined {
    const i = this.#lowerBound(key);
    return this.#keys[i] === key ? this.#values[i] : undefined;
  }

  /** Inserts or replaces. */
  set(key: string, value: V): void {
    const last = this.#keys[this.#keys.length - 1];
    if (last === undefined || key > last) {
      this.#keys.push(key);
      this.#values.push(value);
      return;
    }
    const i = this.#lowerBound(key);
    if (this.#keys[i] === key) {
      this.#values[i] = value;
      return;
    }
    this.#keys.splice(i, 0, key);
    this.#values.splice(i, 0, value);
  }

  delete(key: string): boolean {
    const i = this.#lowerBound(key);
    if (this.#keys[i] !== key) return false;
    this.#keys.splice(i, 1);
    this.#values.splice(i, 1);
    return true;
  }

  /**
   * Up to `limit` values whose keys come strictly after `after` (from the start when undefined);
   * `more` says whether any value follows the page.
   */
  page(after: string | undefined, limit: number): { values: V[]; lastKey: string | undefined; more: boolean } {
    const start = after === undefined ? 0 : this.#upperBound(after);
    const end = Math.min(start + limit, this.#keys.length);
    return {
      values: this.#values.slice(start, end),
      lastKey: end > start ? this.#keys[end - 1] : undefined,
      more: end < this.#keys.length,
    };
  }

  *values(): IterableIterator<V> {
    yield* this.#values;
  }

  /** First index whose key is >= key. */
  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose key is > key. */
  #upperBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
