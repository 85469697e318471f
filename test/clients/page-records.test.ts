import { describe, expect, it } from 'vitest';
// internals: the records of a stream of pages, below what PipelineClient exports
import { recordsOf } from '../../src/clients/pipeline/page-records.js';

/** recordsOf: the records of a stream of pages, one at a time, as PipelineClient.connectors() hands them out. */

async function* pagesOf<T>(pages: T[][], log: string[] = [], failAfter?: number): AsyncGenerator<T[], void, undefined> {
  try {
    for (let i = 0; i < pages.length; i++) {
      if (i === failAfter) throw new Error(`page ${i} failed`);
      log.push(`page ${i}`);
      await new Promise((resolve) => setImmediate(resolve));
      yield pages[i]!;
    }
  } finally {
    log.push('finally');
  }
}

describe('recordsOf', () => {
  it('hands out every record in order, empty pages (a normal last page) included', async () => {
    const seen: number[] = [];
    for await (const n of recordsOf(pagesOf([[1, 2], [], [3], [4, 5, 6], []]))) seen.push(n);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('calls of next() made before the last one settled share the page: none skipped, none twice', async () => {
    const log: string[] = [];
    const records = recordsOf(pagesOf([[1, 2], [3, 4], [5]], log));
    const results = await Promise.all(Array.from({ length: 7 }, () => records.next()));
    expect(results.map((r) => (r.done ? 'done' : r.value))).toEqual([1, 2, 3, 4, 5, 'done', 'done']);
    expect(log).toEqual(['page 0', 'page 1', 'page 2', 'finally']);
  });

  it("a loop left early reaches the pages' finally, and asks for no page after", async () => {
    const log: string[] = [];
    for await (const n of recordsOf(pagesOf([[1, 2], [3, 4], [5]], log))) if (n === 3) break;
    expect(log).toEqual(['page 0', 'page 1', 'finally']);
  });

  it("a page's failure reaches the caller after the records before it, and ends the stream", async () => {
    const seen: number[] = [];
    const records = recordsOf(pagesOf([[1, 2], [3], [4]], [], 2));
    await expect(
      (async () => {
        for await (const n of records) seen.push(n);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1, 2, 3]);
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });
});

describe('recordsOf, ended while a page is on its way', () => {
  it('return() with a next() pending: the page that arrives is not handed out', async () => {
    const log: string[] = [];
    const records = recordsOf(pagesOf([[1], [2, 3]], log));
    expect(await records.next()).toEqual({ value: 1, done: false });
    const pending = records.next();
    await records.return!();
    await pending.catch(() => undefined);
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });

  it('throw() from a generator that delegates to it: the pages end, the error reaches the caller', async () => {
    const log: string[] = [];
    async function* outer() {
      yield* recordsOf(pagesOf([[1, 2], [3]], log));
    }
    const it = outer();
    expect(await it.next()).toEqual({ value: 1, done: false });
    await expect(it.throw(new Error('stop here'))).rejects.toThrow('stop here');
    expect(log.at(-1)).toBe('finally');
  });
});
