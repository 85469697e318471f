import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// internals: the operations and the row guard a run builds, tested without a run
import { createOperations } from '../../src/connector/definition/operations.js';
import { rowJsonReplacer, storedTexts } from '../../src/connector/definition/row-guard.js';
import { Warehouse } from '../../src/hosts/local/warehouse/index.js';
import { copyObjectValue, JsonText } from '../../src/hosts/local/warehouse/base/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { rejection } from '../helpers/rejection.js';

/**
 * The secret guard in front of the warehouse, against a real DuckDB file: a refused row must
 * leave nothing behind, which is checked by reading every table and column the file holds.
 */

const token = 'tok_SuperSecretValue_123';
const umlautSecret = 'geheimes-Paßwort-ü';

let dir: string;
let path: string;
let warehouse: Warehouse | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'operations-test-'));
  path = join(dir, 'warehouse.db');
});

afterEach(async () => {
  await warehouse?.close().catch(() => {});
  warehouse = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function operations() {
  const registry = new SecretRegistry();
  registry.register('token', token);
  registry.register('password', umlautSecret);
  warehouse = await Warehouse.open(path);
  const { op } = createOperations(warehouse, { save: async () => {} }, registry);
  return op;
}

/** Every table name, column name and value in the file, as one text (the warehouse closed first). */
async function everythingStored(): Promise<string> {
  await warehouse!.close();
  warehouse = undefined;
  const instance = await DuckDBInstance.create(path);
  try {
    const connection = await instance.connect();
    const columns = (
      await connection.runAndReadAll(`SELECT table_schema, table_name, column_name FROM information_schema.columns`)
    ).getRowObjectsJS();
    let text = JSON.stringify(columns);
    const tables = new Set(
      columns.map((c) => `"${String(c.table_schema)}"."${String(c.table_name).replaceAll('"', '""')}"`),
    );
    for (const table of tables) {
      const rows = (await connection.runAndReadAll(`SELECT * FROM ${table}`)).getRowObjectsJS();
      text += JSON.stringify(rows, (_k, v: unknown) =>
        typeof v === 'bigint'
          ? v.toString()
          : v instanceof Uint8Array
            ? `${Buffer.from(v).toString('utf8')}|${Buffer.from(v).toString('latin1')}`
            : v,
      );
    }
    connection.closeSync();
    return text;
  } finally {
    instance.closeSync();
  }
}

describe('the secret guard of the operations', () => {
  const refused: [string, string, Record<string, unknown>][] = [
    ['a nested BigInt beside the secret', 't_bigint', { id: 2, meta: { n: 1n, auth: token } }],
    ['a Buffer of the secret (UTF-8)', 't_buffer', { id: 3, raw: Buffer.from(token) }],
    ['a plain Uint8Array of the secret', 't_bytes', { id: 4, raw: new Uint8Array(Buffer.from(token)) }],
    ['the secret as latin1 bytes', 't_latin1', { id: 5, raw: Buffer.from(umlautSecret, 'latin1') }],
    [
      'the secret as UTF-8 bytes inside invalid UTF-8',
      't_mixed',
      { id: 6, raw: Buffer.concat([Buffer.from([0xff, 0xe2]), Buffer.from(umlautSecret), Buffer.from([0xc3])]) },
    ],
    ['a Buffer nested in an object', 't_nested_buffer', { id: 7, meta: { raw: Buffer.from(token) } }],
    ['a Uint8Array nested in an array', 't_nested_bytes', { id: 8, list: [new Uint8Array(Buffer.from(token))] }],
    ['the secret as a column name', 't_column', { id: 9, [`x_${token}`]: 'x' }],
  ];

  for (const [name, table, row] of refused) {
    it(`refuses ${name} with exit 1, nothing written, no secret in the message`, async () => {
      const op = await operations();
      const error = await rejection(op.upsert(table, row));
      expect(error.exitCode).toBe(1);
      expect(error.code).toBe('secret_in_row');
      expect(error.message).not.toContain(token);
      expect(error.message).not.toContain(umlautSecret);
      await expect(rejection(op.update(table, row))).resolves.toMatchObject({ exitCode: 1 });
      await op.upsert('ok', { id: 1, v: 'fine' }); // the file exists and holds something
      await warehouse!.flush();
      const stored = await everythingStored();
      expect(stored).toContain('fine');
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(umlautSecret);
      expect(stored).not.toContain(table);
    });
  }

  it('refuses a table name that holds the secret, in upsert, update, delete and truncate', async () => {
    const op = await operations();
    const table = `t_${token}`;
    for (const call of [
      op.upsert(table, { id: 1 }),
      op.update(table, { id: 1 }),
      op.delete(table, { id: 1 }),
      op.truncate(table),
    ]) {
      const error = await rejection(call);
      expect(error.exitCode).toBe(1);
      expect(error.code).toBe('secret_in_row');
      expect(error.message).toContain('<redacted:token>');
      expect(error.message).not.toContain(token);
    }
    await op.upsert('ok', { id: 1 });
    await warehouse!.flush();
    expect(await everythingStored()).not.toContain(token);
  });

  it('refuses a value it cannot serialize as the warehouse would (exit 1), rather than let it through unchecked', async () => {
    const op = await operations();
    const cyclic: Record<string, unknown> = { auth: token };
    cyclic.self = cyclic;
    const error = await rejection(op.upsert('t_cyclic', { id: 1, meta: cyclic }));
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('row_value_not_serializable');
    const throwing = {
      toJSON: () => {
        throw new Error(token);
      },
    };
    expect(await rejection(op.upsert('t_throwing', { id: 2, meta: throwing }))).toMatchObject({
      exitCode: 1,
      code: 'row_value_not_serializable',
    });
  });

  it('lets clean rows through, nested BigInts and bytes included, and stores them', async () => {
    const op = await operations();
    await op.upsert('clean', {
      id: 1,
      meta: { n: 12n, list: [1, 'a'] },
      raw: Buffer.from('harmless'),
      at: new Date(0),
    });
    await warehouse!.flush();
    const rows = await warehouse!.read('clean');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.meta).toEqual({ n: '12', list: [1, 'a'] });
  });

  it("a number is refused when it is a secret whole, not when a secret's digits occur inside it", async () => {
    const registry = new SecretRegistry();
    registry.register('pin', '482913');
    warehouse = await Warehouse.open(path);
    const { op } = createOperations(warehouse, { save: async () => {} }, registry);
    expect(await rejection(op.upsert('t_pin', { id: 1, code: 482913 }))).toMatchObject({
      exitCode: 1,
      code: 'secret_in_row',
    });
    await op.upsert('orders', { id: 14829130, amount: 4829131 });
    await warehouse.flush();
    expect(await warehouse.read('orders')).toHaveLength(1);
  });

  it('a secret that could be a number, registered mid-run (a rotated PIN), is looked for in numbers from then on', async () => {
    const registry = new SecretRegistry();
    registry.register('token', 'tok_not_a_number');
    warehouse = await Warehouse.open(path);
    const { op } = createOperations(warehouse, { save: async () => {} }, registry);
    await op.upsert('t', { id: 1, code: 739104 }); // no secret could be a number's text: not looked at
    registry.register('pin', '739104');
    expect(await rejection(op.upsert('t', { id: 2, code: 739104 }))).toMatchObject({
      exitCode: 1,
      code: 'secret_in_row',
    });
    // A refusal is a rejected promise, never a throw, even for the first check of a row.
    const refused = op.upsert('t', { id: 3, code: 739104 });
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: 'secret_in_row' });
  });

  it('serializes objects exactly as the warehouse stores them', () => {
    const samples: object[] = [
      { n: 1n, s: 'x', nested: [2n, { d: new Date(0) }] },
      [1n, null, 'é'],
      { b: Buffer.from('ab') },
      { u: new Uint8Array([1, 2]) },
    ];
    for (const sample of samples) {
      const stored = copyObjectValue(sample, 't', 'c');
      expect(stored).toBeInstanceOf(JsonText);
      expect(JSON.stringify(sample, rowJsonReplacer)).toBe((stored as JsonText).text);
      expect(storedTexts(sample)).toContain((stored as JsonText).text);
    }
  });
});

describe('the state guard in op.checkpoint', () => {
  it('the store gets only a JSON object without a secret, with its JSON; anything else is refused with a code', async () => {
    const registry = new SecretRegistry();
    registry.register('token', token);
    warehouse = await Warehouse.open(path);
    const saved: string[] = [];
    const { op } = createOperations(warehouse, { save: async (_state, json) => void saved.push(json) }, registry);
    await op.checkpoint({ cursor: 1 });
    const refused = [
      await rejection(op.checkpoint({ cursor: `after ${token}` })),
      await rejection(op.checkpoint([1, 2] as never)),
      await rejection(op.checkpoint({ big: 1n } as never)),
    ];
    expect(refused.map((error) => [error.exitCode, error.code])).toEqual([
      [1, 'secret_in_state'],
      [1, 'state_not_object'],
      [1, 'state_not_serializable'],
    ]);
    expect(refused[0]!.message).not.toContain(token);
    expect(saved).toEqual(['{"cursor":1}']);
  });
});
