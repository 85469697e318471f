import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse, type Row } from '../../../src/hosts/local/warehouse/index.js';

/**
 * Upserts that travel through the append groups (append-groups.ts): two TEMP tables of 122,880
 * rows filled in turn, each inserted by one statement while the other fills, merged when the table
 * refuses a key; and runs that fit their columns as they are (direct-append.ts, `fittingColumns`).
 * The row counts below cross group boundaries, so a group is refused while the next one fills.
 */

const GROUP = 122_880;

let dir: string;
let path: string;
const open: Warehouse[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'append-groups-test-'));
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

function data(rows: Row[]): Row[] {
  return rows.map(({ _fivetran_synced, _fivetran_deleted, ...rest }) => rest);
}

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
