import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse, type Row } from '../../../src/hosts/local/warehouse/index.js';

/**
 * Upserts appended straight into their table (direct-append.ts) and what happens when the table
 * refuses them (append-groups.ts): whichever path a run takes, the table ends as if every
 * upsert had replaced its row in issue order. With the default batch size, a table's runs are
 * 4,096 operations and an append group holds 122,880 rows, so the row counts below put repeated
 * keys in a later run of the same group, or in the same run.
 */

let dir: string;
let path: string;
const open: Warehouse[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'direct-append-test-'));
  path = join(dir, 'warehouse.db');
});

afterEach(async () => {
  for (const warehouse of open.splice(0)) await warehouse.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

async function openWarehouse(): Promise<Warehouse> {
  const warehouse = await Warehouse.open(path);
  open.push(warehouse);
  return warehouse;
}

async function reopen(warehouse: Warehouse): Promise<Warehouse> {
  await warehouse.close();
  open.splice(open.indexOf(warehouse), 1);
  return openWarehouse();
}

const GROUP = 122_880;

function data(rows: Row[]): Row[] {
  return rows.map(({ _fivetran_synced, _fivetran_deleted, ...rest }) => rest);
}

describe('direct append', () => {
  it('a new table takes many runs of rows as they were given, every value type that appends directly', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    const at = new Date('2026-11-25T10:11:12.345Z');
    for (let i = 0; i < 20_000; i++) {
      await w.upsert('items', {
        id: i,
        name: `name-${i}`,
        amount: i * 1.5,
        active: i % 2 === 0,
        at: new Date(at.getTime() + i),
        big: BigInt(i) * 10_000_000_000n,
        tags: { n: i, list: [i, 'x'] },
      });
    }
    const rows = await w.read('items');
    expect(rows).toHaveLength(20_000);
    expect(data([rows[0]!, rows[12_345]!])).toEqual([
      {
        id: 0,
        name: 'name-0',
        amount: 0,
        active: true,
        at: new Date(at.getTime()),
        big: 0,
        tags: { n: 0, list: [0, 'x'] },
      },
      {
        id: 12_345,
        name: 'name-12345',
        amount: 12_345 * 1.5,
        active: false,
        at: new Date(at.getTime() + 12_345),
        big: 123_450_000_000_000,
        tags: { n: 12_345, list: [12_345, 'x'] },
      },
    ]);
    expect(rows.every((row) => row._fivetran_deleted === false && row._fivetran_synced instanceof Date)).toBe(true);
  });

  it('keys repeated in a later run of the same open transaction: the later rows win, none is lost', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    // 0..9,999 (two runs appended), then 5,000..14,999 again with new names (refused: merged).
    for (let i = 0; i < 10_000; i++) await w.upsert('items', { id: i, name: `first-${i}` });
    for (let i = 5_000; i < 15_000; i++) await w.upsert('items', { id: i, name: `second-${i}` });
    const rows = data(await w.read('items'));
    expect(rows).toHaveLength(15_000);
    expect(rows[4_999]).toEqual({ id: 4_999, name: 'first-4999' });
    expect(rows[5_000]).toEqual({ id: 5_000, name: 'second-5000' });
    expect(rows[14_999]).toEqual({ id: 14_999, name: 'second-14999' });
    // The table's later runs are merged, and still replace rows by key.
    for (let i = 0; i < 3; i++) await w.upsert('items', { id: i, name: 'third' });
    expect(data(await w.read('items')).slice(0, 4)).toEqual([
      { id: 0, name: 'third' },
      { id: 1, name: 'third' },
      { id: 2, name: 'third' },
      { id: 3, name: 'first-3' },
    ]);
  });

  it('a key given twice within one run: the last one wins', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', { id: 1, v: 'a' });
    await w.upsert('t', { id: 2, v: 'b' });
    await w.upsert('t', { id: 1, v: 'c' });
    expect(data(await w.read('t'))).toEqual([
      { id: 1, v: 'c' },
      { id: 2, v: 'b' },
    ]);
  });

  it('a table that already holds rows from an earlier session: existing keys replaced, new ones added', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    for (let i = 0; i < 100; i++) await w.upsert('t', { id: i, v: `old-${i}` });
    w = await reopen(w);
    for (let i = 50; i < 150; i++) await w.upsert('t', { id: i, v: `new-${i}` });
    const rows = data(await w.read('t'));
    expect(rows).toHaveLength(150);
    expect(rows[49]).toEqual({ id: 49, v: 'old-49' });
    expect(rows[50]).toEqual({ id: 50, v: 'new-50' });
    expect(rows[149]).toEqual({ id: 149, v: 'new-149' });
  });

  it('a reopened table with a column added after the warehouse own ones: rows land in the file column order', async () => {
    // `w` is added by ALTER TABLE, so the file holds it after _fivetran_synced and _fivetran_deleted;
    // the session after that appends in the order its catalogue read at open (no DESCRIBE of its own).
    let w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', { v: 'one', id: 1 });
    w = await reopen(w);
    await w.upsert('t', { id: 2, v: 'two', w: 2.5 });
    w = await reopen(w);
    await w.upsert('t', { w: 3.5, id: 3, v: 'three' });
    await w.upsert('t', { id: 1, v: 'one again', w: 1.5 });
    const rows = await w.read('t');
    expect(Object.keys(rows[0]!)).toEqual(['id', 'v', '_fivetran_synced', '_fivetran_deleted', 'w']);
    expect(data(rows)).toEqual([
      { id: 1, v: 'one again', w: 1.5 },
      { id: 2, v: 'two', w: 2.5 },
      { id: 3, v: 'three', w: 3.5 },
    ]);
    expect(rows.every((row) => row._fivetran_synced instanceof Date && row._fivetran_deleted === false)).toBe(true);
  });

  it('appended rows are in the file after flush(), and other operations see them', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    for (let i = 0; i < 10; i++) await w.upsert('t', { id: i, v: i });
    await w.update('t', { id: 3, v: 30 });
    await w.delete('t', { id: 4 });
    await w.upsert('t', { id: 10, v: 10 });
    await w.flush();
    w = await reopen(w);
    const rows = await w.read('t');
    expect(rows).toHaveLength(11);
    expect(data([rows[3]!, rows[10]!])).toEqual([
      { id: 3, v: 30 },
      { id: 10, v: 10 },
    ]);
    expect(rows[4]!._fivetran_deleted).toBe(true);
  });

  it('a column that first appears in a later run is added, earlier rows NULL in it', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'wide', primary_key: ['id'] }]);
    for (let i = 0; i < 9_000; i++) await w.upsert('wide', i < 8_500 ? { id: i } : { id: i, extra: `e${i}` });
    await w.upsert('other', { key: 'k', n: 1 }); // a second table in between
    for (let i = 9_000; i < 9_010; i++) await w.upsert('wide', { id: i, extra: `e${i}`, more: true });
    const rows = await w.read('wide');
    expect(rows).toHaveLength(9_010);
    expect(rows[0]!.extra).toBeNull();
    expect(rows[8_600]!.extra).toBe('e8600');
    expect(rows[9_005]!.more).toBe(true);
    expect(rows[8_600]!.id).toBe(8_600);
    expect(w.schemaChanges).toBe(4); // wide created, its column extra, other created, wide's column more
  });

  it('a value that needs a checked cast takes the merge path and is still refused by column', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT' } }]);
    await w.upsert('t', { id: 1, n: 40_000 });
    await expect(w.flush()).rejects.toThrow(/table "t", column "n": 1 value\(s\) cannot be stored as SMALLINT/);
  });
});

/**
 * The append groups (append-groups.ts): two TEMP tables of 122,880 rows filled in turn, each
 * inserted by one statement while the other fills, merged when the table refuses a key; and runs
 * that fit their columns as they are (direct-append.ts, `fittingColumns`). The row counts below
 * cross group boundaries, so a group is refused while the next one fills.
 */
describe('append groups', () => {
  it('rows across several groups all reach the file, in order, after flush()', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    const total = 2 * GROUP + 1_000;
    for (let i = 0; i < total; i++) await w.upsert('items', { id: i, v: `v${i}` });
    await w.flush();
    w = await reopen(w);
    const rows = data(await w.read('items'));
    expect(rows).toHaveLength(total);
    expect(rows[GROUP - 1]).toEqual({ id: GROUP - 1, v: `v${GROUP - 1}` });
    expect(rows[GROUP]).toEqual({ id: GROUP, v: `v${GROUP}` });
    expect(rows[total - 1]).toEqual({ id: total - 1, v: `v${total - 1}` });
  });

  it('a key of an inserted group given again in a later group: the later row wins, none is lost', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    for (let i = 0; i < GROUP + 5_000; i++) await w.upsert('items', { id: i, v: 'first' });
    // The first group was inserted when it filled; the second holds 5,000 rows and now these.
    for (let i = 0; i < 10; i++) await w.upsert('items', { id: i, v: 'again' });
    for (let i = GROUP + 5_000; i < GROUP + 5_010; i++) await w.upsert('items', { id: i, v: 'new' });
    const rows = data(await w.read('items'));
    expect(rows).toHaveLength(GROUP + 5_010);
    expect(rows.slice(9, 11)).toEqual([
      { id: 9, v: 'again' },
      { id: 10, v: 'first' },
    ]);
    expect(rows[GROUP + 5_009]).toEqual({ id: GROUP + 5_009, v: 'new' });
  });

  it('a table found in the file: its first small group is merged at once, its later groups inserted first, and every upsert lands in order', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    for (let i = 0; i < 1_000; i++) await w.upsert('items', { id: i, v: 'old' });
    w = await reopen(w);
    // The first group (merged at once): held keys, a key given twice, new keys.
    for (let i = 0; i < 10; i++) await w.upsert('items', { id: i, v: 'first' });
    await w.upsert('items', { id: 3, v: 'first-again' });
    for (let i = 1_000; i < 1_010; i++) await w.upsert('items', { id: i, v: 'first-new' });
    await w.flush();
    // A later group: held keys again (refused, then merged) and new ones.
    for (let i = 5; i < 15; i++) await w.upsert('items', { id: i, v: 'second' });
    for (let i = 1_010; i < 1_020; i++) await w.upsert('items', { id: i, v: 'second-new' });
    const rows = data(await w.read('items'));
    expect(rows).toHaveLength(1_020);
    expect(rows.slice(0, 6)).toEqual([
      { id: 0, v: 'first' },
      { id: 1, v: 'first' },
      { id: 2, v: 'first' },
      { id: 3, v: 'first-again' },
      { id: 4, v: 'first' },
      { id: 5, v: 'second' },
    ]);
    expect(rows[15]).toEqual({ id: 15, v: 'old' });
    expect(rows[1_000]).toEqual({ id: 1_000, v: 'first-new' });
    expect(rows[1_019]).toEqual({ id: 1_019, v: 'second-new' });
  });

  it('a merged group with a two-column key: held rows replaced whole, a key given twice keeps its last row', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 'prices', primary_key: ['region', 'sku'] }]);
    await w.upsert('prices', { region: 'eu', sku: 1, price: 10, note: 'old' });
    await w.upsert('prices', { region: 'us', sku: 1, price: 11, note: 'old' });
    await w.upsert('prices', { region: 'eu', sku: 2, price: 12, note: 'old' });
    w = await reopen(w);
    // A held key without `note`: the whole row is replaced, so `note` becomes NULL (as Fivetran's upsert).
    await w.upsert('prices', { region: 'eu', sku: 1, price: 20 });
    // The same sku in another region is another key: left as it was.
    await w.upsert('prices', { region: 'eu', sku: 2, price: 21, note: 'first' });
    await w.upsert('prices', { region: 'eu', sku: 2, price: 22, note: 'second' });
    await w.upsert('prices', { region: 'ap', sku: 1, price: 23, note: 'new' });
    await w.flush();
    const rows = data(await w.read('prices')).sort((a, b) => (`${a.region}${a.sku}` < `${b.region}${b.sku}` ? -1 : 1));
    expect(rows).toEqual([
      { region: 'ap', sku: 1, price: 23, note: 'new' },
      { region: 'eu', sku: 1, price: 20, note: null },
      { region: 'eu', sku: 2, price: 22, note: 'second' },
      { region: 'us', sku: 1, price: 11, note: 'old' },
    ]);
  });

  it('a merged group with a column named rowid: the last row of a key still wins', async () => {
    // A table's own column named rowid hides DuckDB's, which orders a group's rows.
    let w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    await w.upsert('t', { id: 1, rowid: 'held' });
    w = await reopen(w);
    // Sorted by their own value, the first would win: 'z' > 'a'.
    await w.upsert('t', { id: 1, rowid: 'z-first' });
    await w.upsert('t', { id: 2, rowid: 'y-first' });
    await w.upsert('t', { id: 1, rowid: 'a-last' });
    await w.upsert('t', { id: 2, rowid: 'b-last' });
    expect(data(await w.read('t'))).toEqual([
      { id: 1, rowid: 'a-last' },
      { id: 2, rowid: 'b-last' },
    ]);
  });

  it('a group refused while the next one fills: both are written, in issue order', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    // Key 5 twice within the first group (refused when inserted, merged), then the second group
    // gives keys 5 and 7 again while the first one is written: the second group's rows win.
    for (let i = 0; i < GROUP; i++) await w.upsert('items', { id: i === 100_000 ? 5 : i, v: `g1-${i}` });
    for (let i = 0; i < 20_000; i++) {
      const id = i === 10_000 ? 5 : i === 10_001 ? 7 : GROUP + i;
      await w.upsert('items', { id, v: `g2-${i}` });
    }
    const rows = data(await w.read('items'));
    // 100,000 is never given; 5 and 7 are given again.
    expect(rows).toHaveLength(GROUP - 1 + 20_000 - 2);
    expect(rows.find((row) => row.id === 5)).toEqual({ id: 5, v: 'g2-10000' });
    expect(rows.find((row) => row.id === 7)).toEqual({ id: 7, v: 'g2-10001' });
    expect(rows.find((row) => row.id === 6)).toEqual({ id: 6, v: 'g1-6' });
    expect(rows.find((row) => row.id === GROUP + 19_999)).toEqual({ id: GROUP + 19_999, v: 'g2-19999' });
  });

  it('a later run whose values do not fit their column still widens it, counted once', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'] }]);
    // The first run (4,096 rows) creates n as BIGINT; the next ones fit it; the last one widens it.
    for (let i = 0; i < 20_000; i++) await w.upsert('t', { id: i, n: i === 19_000 ? 0.5 : i });
    const rows = data(await w.read('t'));
    expect(rows).toHaveLength(20_000);
    expect(rows[19_000]).toEqual({ id: 19_000, n: 0.5 });
    expect(rows[12_345]).toEqual({ id: 12_345, n: 12_345 });
    expect(w.schemaChanges).toBe(2); // t created with its column n, n widened to DOUBLE
  });

  it('a declared type whose cast can fail is still checked in a later run, and refused by column', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT' } }]);
    for (let i = 0; i < 10_000; i++) await w.upsert('t', { id: i, n: i === 9_000 ? 40_000 : 1 });
    await expect(w.flush()).rejects.toThrow(/table "t", column "n": 1 value\(s\) cannot be stored as SMALLINT/);
  });
});

/**
 * Which path wrote the upserts (BatchWriter.upsertPaths, the run's `upsertPaths`): a benchmark alone
 * would notice that the append paths stopped being taken; these counts make a test notice.
 */
describe('the path each upsert took', () => {
  it('a first sync of new keys: every upsert appended, none merged (both append paths: the first run and the fitting ones)', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    for (let i = 0; i < 20_000; i++) await w.upsert('items', { id: i, name: `name-${i}`, amount: i * 1.5 });
    await w.flush();
    expect(w.upsertPaths).toEqual({ appended: 20_000, merged: 0 });
  });

  it('held keys written again: merged, first at once (a small first group), then after the refused insert', async () => {
    let w = await openWarehouse();
    await w.declare([{ table: 'items', primary_key: ['id'] }]);
    for (let i = 0; i < 1_000; i++) await w.upsert('items', { id: i, v: 'old' });
    await w.flush();
    expect(w.upsertPaths).toEqual({ appended: 1_000, merged: 0 });
    w = await reopen(w);
    for (let i = 0; i < 10; i++) await w.upsert('items', { id: i, v: 'first' });
    await w.flush();
    for (let i = 5; i < 15; i++) await w.upsert('items', { id: i, v: 'second' });
    await w.flush();
    expect(w.upsertPaths).toEqual({ appended: 0, merged: 20 });
  });

  it('declared INT and SHORT columns whose values fit, their bounds included: appended in both runs, stored exactly', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT', m: 'INT' } }]);
    const edges = [-(2 ** 15), 2 ** 15 - 1];
    const wide = [-(2 ** 31), 2 ** 31 - 1];
    // The first run (4,096 rows) is staged and appended; the later ones fit the columns as they are.
    for (let i = 0; i < 10_000; i++)
      await w.upsert('t', { id: i, n: edges[i % 2]!, m: wide[i % 2]! + (i % 2 ? -i : i) });
    await w.flush();
    expect(w.upsertPaths).toEqual({ appended: 10_000, merged: 0 });
    const rows = data(await w.read('t'));
    expect(rows[0]).toEqual({ id: 0, n: -(2 ** 15), m: -(2 ** 31) });
    expect(rows[9_999]).toEqual({ id: 9_999, n: 2 ** 15 - 1, m: 2 ** 31 - 1 - 9_999 });
  });

  it('a run that adds a column to a table with INT columns: staged, its INTs unchecked in range, still appended', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'INT' } }]);
    // `note` is new in every run's first rows: the run cannot fit the table as it is, and is staged.
    for (let i = 0; i < 100; i++) await w.upsert('t', { id: i, n: 2 ** 31 - 1 - i, note: `row ${i}` });
    await w.flush();
    expect(w.upsertPaths).toEqual({ appended: 100, merged: 0 });
    expect(data(await w.read('t'))[99]).toEqual({ id: 99, n: 2 ** 31 - 100, note: 'row 99' });
  });

  it('every upsert is counted on one path, a run whose values need a checked cast included', async () => {
    const w = await openWarehouse();
    await w.declare([{ table: 't', primary_key: ['id'], columns: { id: 'INT', n: 'SHORT' } }]);
    await w.upsert('t', { id: 1, n: 7 });
    await w.flush();
    const { appended, merged } = w.upsertPaths;
    expect(appended + merged).toBe(1);
  });
});
