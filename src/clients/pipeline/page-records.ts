/**
 * The records of a stream of pages, handed out one at a time: what `PipelineClient.connectors()` and
 * `groups()` return.
 *
 * Why not an async generator that yields each record: every `yield` of an async generator goes
 * through its request queue and two promise turns, 0.2–0.3 µs a record on these machines, which is
 * 5–7% of listing 100,000 connectors (bench/throughput/paging.ts). Here a record of the page in hand is an
 * already-resolved promise, and only the first record of a page waits for the pages' generator.
 *
 * Calls to next() made before the last one settled (not a for-await loop's way, but allowed) share
 * the page being awaited, so no record is skipped or handed out twice. return() (a loop left early)
 * reaches the pages' generator, whose `finally` lets a prefetched page go; so does throw().
 */
export function recordsOf<T>(pages: AsyncGenerator<readonly T[], void, undefined>): AsyncIterableIterator<T> {
  let items: readonly T[] = [];
  let index = 0;
  let finished = false;
  let nextPage: Promise<void> | undefined;

  const next = (): Promise<IteratorResult<T, undefined>> => {
    if (index < items.length) return Promise.resolve({ value: items[index++]!, done: false });
    if (finished) return Promise.resolve({ value: undefined, done: true });
    nextPage ??= pages.next().then(
      (page) => {
        nextPage = undefined;
        if (page.done) finished = true;
        // A page that arrives after return() is not handed out.
        else if (!finished) [items, index] = [page.value, 0];
      },
      (error: unknown) => {
        nextPage = undefined;
        finished = true;
        throw error;
      },
    );
    // An empty page (a normal last page) leads straight to the next one, or to the end.
    return nextPage.then(next);
  };

  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => iterator,
    next,
    async return() {
      finished = true;
      items = [];
      await pages.return(undefined);
      return { value: undefined, done: true };
    },
    // What a generator delegating to this one (`yield*`) calls when it is thrown into: end, then rethrow.
    async throw(error?: unknown) {
      finished = true;
      items = [];
      await pages.return(undefined);
      throw error;
    },
  };
  return iterator;
}
