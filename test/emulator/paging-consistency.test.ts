import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// internals: the store's sorted index, which the store's door does not export
import { SortedIndex } from '../../src/emulator/store/sorted-index.js';
import { takePage } from '../../src/emulator/store/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { control, emulator, minimalConnector, pipelineClient } from './support.js';

/**
 * Section 4.7 with a changing collection: records inserted and deleted between page requests. The
 * guarantee of a last-key cursor: no record is listed twice, and every record that existed for the
 * whole listing is listed. (An offset cursor fails both: see the last test.)
 */

/** A seeded generator, so a failing sequence can be replayed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('paging while records change, over HTTP', () => {
  let emu: RunningEmulator;
  let client: Awaited<ReturnType<typeof pipelineClient>>;
  beforeAll(async () => {
    emu = await emulator({ data: { groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z' }] } });
    for (let i = 0; i < 300; i++) emu.store.addConnector(minimalConnector(`c${String(i * 10).padStart(5, '0')}`, 'g'));
    client = await pipelineClient(emu);
  });
  afterAll(async () => {
    await client.close();
    await emu.stop();
  });

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: inserts and deletes (through the control routes) between pages`, async () => {
      const random = seeded(seed);
      const initial = new Set([...emu.store.connectors()].map((c) => c.id));
      const deleted = new Set<string>();
      const listed: string[] = [];
      let cursor: string | undefined;
      let serial = 0;
      do {
        const page = await client.listConnectors('g', {
          limit: 1 + Math.floor(random() * 25),
          ...(cursor ? { cursor } : {}),
        });
        listed.push(...page.items.map((c) => c.id));
        cursor = page.nextCursor;
        // Between pages: insert before and after the position, delete listed and unlisted records.
        for (let k = 0; k < 4; k++) {
          const id = `c${String(Math.floor(random() * 3000)).padStart(5, '0')}_${seed}_${serial++}`;
          const reply = await control(emu, 'POST', '/connectors', { ...minimalConnector(id, 'g') });
          expect(reply.status).toBe(201);
        }
        const present = [...emu.store.connectors()].map((c) => c.id);
        for (let k = 0; k < 3; k++) {
          const victim = present[Math.floor(random() * present.length)]!;
          if (deleted.has(victim)) continue;
          deleted.add(victim);
          expect((await control(emu, 'DELETE', `/connectors/${victim}`)).status).toBe(200);
        }
      } while (cursor !== undefined);

      expect(new Set(listed).size, 'a record was listed twice').toBe(listed.length);
      const listedSet = new Set(listed);
      const survivors = [...initial].filter((id) => !deleted.has(id));
      expect(
        survivors.filter((id) => !listedSet.has(id)),
        'records that existed throughout were missed',
      ).toEqual([]);
      expect(listed).toEqual([...listed].sort());

      // Restore the 300 originals for the next seed.
      for (const c of [...emu.store.connectors()]) emu.store.removeConnector(c.id);
      for (const id of initial) emu.store.addConnector(minimalConnector(id, 'g'));
    });
  }

  it('the async iterator (which prefetches one page) keeps the guarantee too', async () => {
    const initial = [...emu.store.connectors()].map((c) => c.id);
    const listed: string[] = [];
    let n = 0;
    for await (const c of client.connectors('g', { limit: 7 })) {
      listed.push(c.id);
      if (++n % 7 === 0) {
        emu.store.addConnector(minimalConnector(`a_inserted_${n}`, 'g')); // before everything
        emu.store.addConnector(minimalConnector(`z_inserted_${n}`, 'g')); // after everything
        const victim = initial[(n * 13) % initial.length]!;
        if (victim > c.id) emu.store.removeConnector(victim); // not yet listed: may legitimately vanish
      }
    }
    expect(new Set(listed).size).toBe(listed.length);
    const gone = new Set(initial.filter((id) => !emu.store.getConnector(id)));
    expect(initial.filter((id) => !gone.has(id) && !listed.includes(id))).toEqual([]);
  });
});

describe('the cursor index in isolation (many random rounds, no HTTP)', () => {
  it('holds the guarantee over 300 random histories', () => {
    for (let seed = 100; seed < 400; seed++) {
      const random = seeded(seed);
      const index = new SortedIndex<string>();
      for (let i = 0; i < 60; i++) {
        const k = `k${String(Math.floor(random() * 1000)).padStart(4, '0')}`;
        index.set(k, k);
      }
      const initial = new Set(index.values());
      const deleted = new Set<string>();
      const listed: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = takePage(index, 's', after, 1 + Math.floor(random() * 9), 'look-ahead');
        listed.push(...page.values);
        if (!page.nextCursor) break;
        after = page.values.at(-1);
        for (let k = 0; k < 3; k++) {
          const key = `k${String(Math.floor(random() * 1000)).padStart(4, '0')}`;
          if (random() < 0.5) {
            if (!deleted.has(key) && index.get(key) === undefined) index.set(key, key);
          } else if (index.delete(key)) deleted.add(key);
        }
      }
      expect(new Set(listed).size).toBe(listed.length);
      const missed = [...initial].filter((k) => !deleted.has(k) && !listed.includes(k));
      expect(missed, `seed ${seed}`).toEqual([]);
    }
  });

  it('an offset cursor would break: the same history skips a record (why the emulator does not use one)', () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    const index = new SortedIndex<string>();
    for (const k of keys) index.set(k, k);
    const byKey = takePage(index, 's', undefined, 3, 'look-ahead'); // a b c
    const offsetPage1 = keys.slice(0, 3);
    index.delete('a'); // a listed record goes away between pages
    const byKeyNext = takePage(index, 's', byKey.values.at(-1), 3, 'look-ahead').values;
    const offsetNext = [...index.values()].slice(3, 6);
    expect(byKeyNext).toEqual(['d', 'e', 'f']);
    expect(offsetNext).toEqual(['e', 'f']); // 'd' existed throughout and an offset cursor missed it
    expect(offsetPage1).toEqual(byKey.values);
  });
});
