import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, type RunningEmulator } from '../../src/emulator/index.js';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { basic, control, emulator, minimalConnector, raw } from './support.js';

/**
 * The emulator's pipeline interface on the wire: statuses, headers and bodies exactly, for every
 * endpoint of specification 4.1–4.3 and every kind of bad input. A refused request changes nothing.
 */

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.stop());

describe('5.1 every pipeline operation needs HTTP Basic with the API key and secret', () => {
  const cases: Array<[string, string]> = [
    ['GET', '/v1/groups'],
    ['GET', '/v1/groups/grp_finance/connectors'],
    ['POST', '/v1/transformations/tp_github_activity/upgrade'],
  ];
  for (const [method, path] of cases) {
    for (const [label, authorization] of [
      ['missing', null],
      ['wrong secret', basic('demo_api_key', 'wrong')],
      ['wrong key', basic('other_key', 'demo-api-secret-5f1c9e')],
      ['bearer instead of basic', 'Bearer demo-api-secret-5f1c9e'],
      ['malformed', 'Basic !!!'],
    ] as const) {
      it(`${method} ${path}, ${label}: 401 {code, message}, WWW-Authenticate, nothing changed`, async () => {
        const snapshot = emu.store.snapshot();
        const reply = await raw(emu, path, { method, authorization });
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual({ code: 'AuthFailed', message: 'Missing or invalid API key and secret.' });
        expect(reply.headers.get('www-authenticate')).toBe('Basic realm="pipeline"');
        expect(emu.store.snapshot()).toBe(snapshot);
      });
    }
  }
});

describe('4.7 and 8: limit 1..1000, default 100, refused otherwise', () => {
  for (const limit of ['0', '1001', 'abc', '1.5', '-1', '', '1e2', ' 5', '10000000000']) {
    it(`limit=${JSON.stringify(limit)}: 400 InvalidInput on groups and connectors`, async () => {
      for (const path of ['/v1/groups', '/v1/groups/grp_finance/connectors']) {
        const reply = await raw(emu, `${path}?limit=${encodeURIComponent(limit)}`);
        expect(reply.status, path).toBe(400);
        expect(reply.body).toEqual({
          code: 'InvalidInput',
          message: "Invalid 'limit': must be an integer from 1 to 1000",
        });
      }
    });
  }

  it('limit given twice is refused', async () => {
    expect((await raw(emu, '/v1/groups?limit=1&limit=2')).status).toBe(400);
  });

  it('a bad limit is a 400 even for an unknown group (input is checked first)', async () => {
    expect((await raw(emu, '/v1/groups/grp_nope/connectors?limit=0')).status).toBe(400);
  });

  it('default 100; limits 1 and 1000 accepted', async () => {
    expect((await raw(emu, '/v1/groups/grp_analytics/connectors')).body.data.items).toHaveLength(100);
    expect((await raw(emu, '/v1/groups/grp_analytics/connectors?limit=1')).body.data.items).toHaveLength(1);
    expect((await raw(emu, '/v1/groups/grp_analytics/connectors?limit=1000')).body.data.items).toHaveLength(160);
  });
});

describe('4.7 paging rules, one by one', () => {
  it('rule 1: a request without cursor returns the first page', async () => {
    const first = await raw(emu, '/v1/groups?limit=2');
    const all = await raw(emu, '/v1/groups?limit=1000');
    expect(first.body.data.items).toEqual(all.body.data.items.slice(0, 2));
  });

  it('rule 2: a response carries data.items and, when more items exist, data.next_cursor', async () => {
    expect((await raw(emu, '/v1/groups?limit=5')).body.data.next_cursor).toBeTypeOf('string');
    expect('next_cursor' in (await raw(emu, '/v1/groups?limit=6')).body.data).toBe(false);
  });

  it('rule 3: next_cursor passed as cursor fetches the next page', async () => {
    const all = (await raw(emu, '/v1/groups?limit=1000')).body.data.items;
    const first = await raw(emu, '/v1/groups?limit=2');
    const next = await raw(emu, `/v1/groups?limit=2&cursor=${first.body.data.next_cursor}`);
    expect(next.body.data.items).toEqual(all.slice(2, 4));
  });

  it('rule 4: no next_cursor means no items remain; the last response may carry an empty items array', async () => {
    await control(emu, 'PUT', '/settings', { paging_style: 'full-page' });
    try {
      const full = await raw(emu, '/v1/groups?limit=6');
      expect(full.body.data.items).toHaveLength(6);
      const last = await raw(emu, `/v1/groups?limit=6&cursor=${full.body.data.next_cursor}`);
      expect(last.body.data).toEqual({ items: [] });
    } finally {
      await control(emu, 'PUT', '/settings', { paging_style: 'look-ahead' });
    }
  });

  it('rule 5: limit accepts 1..1000 and defaults to 100 (see section 8 below)', async () => {
    expect((await raw(emu, '/v1/groups/grp_analytics/connectors')).body.data.items).toHaveLength(100);
  });
});

describe('2.5 the paging envelope and 4.7 cursors', () => {
  it('{code: Success, message, data: {items, next_cursor}}; next_cursor absent on the last page', async () => {
    const first = await raw(emu, '/v1/groups/grp_analytics/connectors?limit=100');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.body.code).toBe('Success');
    expect(first.body.message).toBe('Operation performed.');
    expect(first.body.data.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await raw(
      emu,
      `/v1/groups/grp_analytics/connectors?limit=100&cursor=${first.body.data.next_cursor}`,
    );
    expect(second.body.data.items).toHaveLength(60);
    expect('next_cursor' in second.body.data).toBe(false);
  });

  it('the cursor is opaque and names the last key seen, not an offset', async () => {
    const first = await raw(emu, '/v1/groups/grp_analytics/connectors?limit=3');
    const items = first.body.data.items as Array<{ id: string }>;
    const cursor = first.body.data.next_cursor as string;
    expect(cursor).not.toMatch(/^\d+$/);
    expect(decodeCursor(cursor, 'connectors:grp_analytics')).toEqual({
      scope: 'connectors:grp_analytics',
      after: items[2]!.id,
    });
  });

  it('a cursor that does not decode, or belongs to another collection, is a 400', async () => {
    const other = (await raw(emu, '/v1/groups/grp_marketing/connectors?limit=1')).body.data.next_cursor as string;
    const groups = (await raw(emu, '/v1/groups?limit=1')).body.data.next_cursor as string;
    for (const cursor of ['garbage!', 'MTAw', other, groups]) {
      const reply = await raw(emu, `/v1/groups/grp_analytics/connectors?cursor=${encodeURIComponent(cursor)}`);
      expect(reply.status, cursor).toBe(400);
      expect(reply.body.code).toBe('InvalidInput');
    }
  });

  it('the schema filter applies, with paging', async () => {
    const all = (await raw(emu, '/v1/groups/grp_analytics/connectors?limit=1000')).body.data.items as Array<{
      id: string;
      schema: string;
    }>;
    const schema = all[42]!.schema;
    const reply = await raw(emu, `/v1/groups/grp_analytics/connectors?schema=${schema}`);
    expect(reply.body.data.items.map((c: { id: string }) => c.id)).toEqual(
      all.filter((c) => c.schema === schema).map((c) => c.id),
    );
    expect((await raw(emu, '/v1/groups/grp_analytics/connectors?schema=none_such')).body.data).toEqual({ items: [] });
  });
});

describe('page bodies are assembled in reused buffers (page-buffers.ts)', () => {
  const pageOf = async (limit: number, cursor?: string) =>
    (await raw(emu, `/v1/groups/grp_analytics/connectors?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)).body
      .data;

  it('pages requested at once each get their own body, equal to the same page asked alone', async () => {
    const limits = [1000, 7, 160, 1, 99, 1000, 33, 500];
    const alone = [];
    for (const limit of limits) alone.push(await pageOf(limit));
    const together = await Promise.all(limits.map((limit) => pageOf(limit)));
    expect(together).toEqual(alone);
  });

  it("a slow reader's page is not overwritten by the pages served while it is still being written", async () => {
    const big = await emulator({
      data: { groups: ['g', 'h'].map((id) => ({ id, name: id, created_at: '2024-01-01T00:00:00.000Z' })) },
    });
    try {
      const padding = (group: string, n: number) => `s_${group.repeat(12_000)}_${n}`;
      for (const group of ['g', 'h'])
        for (let i = 0; i < 1000; i++)
          big.store.addConnector({
            ...minimalConnector(`${group}${String(i).padStart(4, '0')}`, group),
            schema: padding(group, i),
          });
      const authorization = basic(big.credentials.apiKey, big.credentials.apiSecret);
      // Page g (~12 MB, more than the socket buffers hold) is asked for and not read: the server is
      // left holding the rest of its bytes.
      const slow = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(`${big.url}/v1/groups/g/connectors?limit=1000`, { headers: { authorization } }, resolve).on(
          'error',
          reject,
        ),
      );
      slow.pause();
      // Pages of the same size are served meanwhile.
      for (let i = 0; i < 3; i++)
        expect((await raw(big, '/v1/groups/h/connectors?limit=1000')).body.data.items[999].schema).toBe(
          padding('h', 999),
        );
      const chunks: Buffer[] = [];
      for await (const chunk of slow) chunks.push(chunk as Buffer);
      const items = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.items as Array<{ schema: string }>;
      expect(items.map((c) => c.schema)).toEqual(Array.from({ length: 1000 }, (_, n) => padding('g', n)));
    } finally {
      await big.stop();
    }
  });

  it('a reader that hangs up in the middle of a big page leaves the next pages whole', async () => {
    const big = await emulator({ data: { groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z' }] } });
    try {
      for (let i = 0; i < 1000; i++)
        big.store.addConnector({
          ...minimalConnector(`c${String(i).padStart(4, '0')}`, 'g'),
          schema: `s_${'x'.repeat(2000)}_${i}`,
        });
      const url = `${big.url}/v1/groups/g/connectors?limit=1000`;
      const authorization = basic(big.credentials.apiKey, big.credentials.apiSecret);
      // ~2 MB: more than the socket takes at once, so the server is still writing when the reader goes.
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          const request = httpGet(url, { headers: { authorization } }, (response) => {
            response.once('data', () => {
              request.destroy();
              resolve();
            });
          });
          request.on('error', (error) => (request.destroyed ? resolve() : reject(error)));
        });
      }
      const expected = big.store.snapshot();
      for (let i = 0; i < 3; i++) {
        const reply = await raw(big, '/v1/groups/g/connectors?limit=1000');
        expect(reply.status).toBe(200);
        expect(reply.body.data.items.map((c: { schema: string }) => c.schema)).toEqual(
          Array.from({ length: 1000 }, (_, n) => `s_${'x'.repeat(2000)}_${n}`),
        );
      }
      expect(big.store.snapshot()).toBe(expected);
    } finally {
      await big.stop();
    }
  });
});

describe('4.1 unknown group, 4.3 upgrade, other statuses', () => {
  it('unknown group: 404 {code: NotFound_Group, message}', async () => {
    const reply = await raw(emu, '/v1/groups/grp_nope/connectors');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 'NotFound_Group', message: "Group with id 'grp_nope' does not exist." });
  });

  it('the connections path segment is served too', async () => {
    expect((await raw(emu, '/v1/groups/grp_sandbox/connections')).body.data.items).toHaveLength(4);
  });

  it('upgrade: 200 {code, message}; the package moves to its latest version', async () => {
    const reply = await raw(emu, '/v1/transformations/tp_stripe_revenue/upgrade', { method: 'POST' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ code: 'Success', message: 'Transformation package has been upgraded' });
    expect(emu.store.getTransformation('tp_stripe_revenue')!.version).toBe(4);
  });

  it('upgrade of an unknown package: 404 NotFound_Transformation, nothing changed', async () => {
    const snapshot = emu.store.snapshot();
    const reply = await raw(emu, '/v1/transformations/tp_nope/upgrade', { method: 'POST' });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      code: 'NotFound_Transformation',
      message: "Transformation package with id 'tp_nope' does not exist.",
    });
    expect(emu.store.snapshot()).toBe(snapshot);
  });

  it('wrong method: 405 with Allow; unknown path: 404', async () => {
    const reply = await raw(emu, '/v1/groups', { method: 'DELETE' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET');
    expect((await raw(emu, '/v1/transformations/tp_stripe_revenue/upgrade')).status).toBe(405);
    expect((await raw(emu, '/v1/nothing')).status).toBe(404);
  });

  it('an Accept that excludes JSON: 406 (requests send Accept: application/json)', async () => {
    const reply = await raw(emu, '/v1/groups', { accept: 'text/html' });
    expect(reply.status).toBe(406);
    expect(reply.body.code).toBe('NotAcceptable');
    expect((await raw(emu, '/v1/groups', { accept: 'application/json' })).status).toBe(200);
    expect((await raw(emu, '/v1/groups', { accept: '*/*' })).status).toBe(200);
  });

  it('injected faults answer first, then the emulator serves normally again', async () => {
    await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 503, retry_after: 7 });
    const faulted = await raw(emu, '/v1/groups');
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get('retry-after')).toBe('7');
    expect((await raw(emu, '/v1/groups')).status).toBe(200);
  });
});
