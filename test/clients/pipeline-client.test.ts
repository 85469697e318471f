import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConfigurationError, SourceUnreachableError } from '../../src/errors/index.js';
import { InvalidRequestError, NotFoundError, PipelineClient, type Connector } from '../../src/clients/index.js';
import { authenticate } from '../../src/connector/index.js';
import { secrets } from '../../src/secrets/index.js';
import { DEFAULT_GROUP_SIZES, type RunningEmulator } from '../../src/emulator/index.js';
import { control, emulator, expectNoLeak, failure, minimalConnector, pipelineClient } from '../emulator/support.js';

/**
 * The pipeline client against the emulator over loopback HTTP: every endpoint of specification 4.1–4.3,
 * the paging rules of 4.7, the limits of section 8 and the error mapping of section 7.
 */

let emu: RunningEmulator;
let client: Awaited<ReturnType<typeof pipelineClient>>;

beforeAll(async () => {
  emu = await emulator();
  client = await pipelineClient(emu);
});
afterAll(async () => {
  await client.close();
  await emu.stop();
});

const all = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('4.2 list groups', () => {
  it('returns the group records (id, name, created_at with fractional seconds)', async () => {
    const page = await client.listGroups();
    expect(page.items.map((g) => g.id).sort()).toEqual(Object.keys(DEFAULT_GROUP_SIZES).sort());
    for (const g of page.items) expect(g.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    expect(page.nextCursor).toBeUndefined();
  });

  it('pages with cursor and limit, and the iterator visits every group once', async () => {
    const first = await client.listGroups({ limit: 4 });
    expect(first.items).toHaveLength(4);
    expect(first.nextCursor).toBeTypeOf('string');
    const second = await client.listGroups({ limit: 4, cursor: first.nextCursor! });
    expect(second.items).toHaveLength(2);
    expect(second.nextCursor).toBeUndefined();
    const ids = (await all(client.groups({ limit: 1 }))).map((g) => g.id);
    expect(ids).toEqual([...first.items, ...second.items].map((g) => g.id));
  });
});

describe('4.1 list all connectors within a group', () => {
  it('returns full connector records with the wire names of the real service', async () => {
    const { items } = await client.listConnectors('grp_finance', { limit: 1000 });
    expect(items).toHaveLength(DEFAULT_GROUP_SIZES.grp_finance!);
    const c = items[0]!;
    for (const field of [
      'id',
      'group_id',
      'service',
      'service_version',
      'schema',
      'paused',
      'status',
      'config',
      'succeeded_at',
      'failed_at',
      'sync_frequency',
      'pause_after_trial',
      'connected_by',
      'setup_tests',
      'source_sync_details',
      'created_at',
      'schedule_type',
      'connect_card_config',
    ])
      expect(c, field).toHaveProperty(field);
    expect(c.group_id).toBe('grp_finance');
    expect(['incomplete', 'connected', 'broken']).toContain(c.status.setup_state);
  });

  it('limit defaults to 100 (rule 4.7.5): a group of 160 answers 100 and a cursor', async () => {
    const page = await client.listConnectors('grp_analytics');
    expect(page.items).toHaveLength(100);
    expect(page.nextCursor).toBeDefined();
  });

  it('the iterator follows next_cursor until it is absent (rules 4.7.1–4.7.4)', async () => {
    const ids = (await all(client.connectors('grp_analytics'))).map((c) => c.id);
    expect(ids).toHaveLength(160);
    expect(new Set(ids).size).toBe(160);
    expect(ids).toEqual([...ids].sort());
  });

  it('an empty group is one empty page without a cursor', async () => {
    expect(await client.listConnectors('grp_archive')).toEqual({ items: [], nextCursor: undefined });
    expect(await all(client.connectors('grp_archive'))).toEqual([]);
  });

  it('the schema filter returns the connector of that name only', async () => {
    const target = (await client.listConnectors('grp_marketing', { limit: 1000 })).items[7]!;
    const { items } = await client.listConnectors('grp_marketing', { schema: target.schema });
    expect(items.map((c) => c.id)).toEqual([target.id]);
    expect(await all(client.connectors('grp_marketing', { schema: 'no_such_schema' }))).toEqual([]);
  });

  it('an unknown group is a NotFoundError (exit 1) naming the group', async () => {
    const error = await failure(client.listConnectors('grp_nope'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain("group 'grp_nope' not found");
    expect(error.message).toContain('NotFound_Group');
  });

  it("the path segment 'connections' (the real service's newer name) is an option", async () => {
    const other = await pipelineClient(emu, { collection: 'connections' });
    try {
      expect((await other.listConnectors('grp_sandbox')).items).toHaveLength(4);
    } finally {
      await other.close();
    }
  });

  it('an empty last page is handled (services that do not look ahead)', async () => {
    await control(emu, 'PUT', '/settings', { paging_style: 'full-page' });
    try {
      const first = await client.listConnectors('grp_sandbox', { limit: 2 });
      const second = await client.listConnectors('grp_sandbox', { limit: 2, cursor: first.nextCursor! });
      expect(second.nextCursor).toBeDefined();
      const last = await client.listConnectors('grp_sandbox', { limit: 2, cursor: second.nextCursor! });
      expect(last).toEqual({ items: [], nextCursor: undefined });
      expect(await all(client.connectors('grp_sandbox', { limit: 2 }))).toHaveLength(4);
    } finally {
      await control(emu, 'PUT', '/settings', { paging_style: 'look-ahead' });
    }
  });

  it('large pages (limit 1000, ~850 KB) are read into reused buffers and parsed in pieces, record for record', async () => {
    emu.store.addGroup({ id: 'grp_large', name: 'Large', created_at: '2024-01-01T00:00:00.000Z' });
    const template = [...emu.store.connectors()].find((c) => c.group_id === 'grp_finance')!;
    for (let i = 0; i < 2500; i++)
      emu.store.addConnector({
        ...structuredClone(template),
        id: `grp_large_${String(i).padStart(5, '0')}`,
        group_id: 'grp_large',
        schema: `large_${i}`,
      });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const listed = await all(client.connectors('grp_large', { limit: 1000 }));
      expect(listed).toStrictEqual([...emu.store.connectors()].filter((c) => c.group_id === 'grp_large'));
      // No string of a whole page was parsed: V8's large-object size is 128 KiB (page-body-parse.ts).
      const longest = Math.max(...parse.mock.calls.map(([text]) => String(text).length));
      expect(longest).toBeLessThan(128 * 1024);
      expect(parse.mock.calls.length).toBeGreaterThan(3 * 10);
    } finally {
      parse.mockRestore();
      emu.store.removeGroup('grp_large');
    }
  });

  it('stopping the iteration early ends cleanly (the prefetched page is drained)', async () => {
    let n = 0;
    for await (const _ of client.connectors('grp_analytics', { limit: 10 })) if (++n === 15) break;
    expect(n).toBe(15);
  });

  it('unknown fields are kept (records are validated, not stripped)', async () => {
    const e = await emulator({
      data: {
        groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z', region: 'eu' }],
        connectors: [{ ...minimalConnector('c1', 'g'), future_field: { nested: true } }],
      },
    });
    const c2 = await pipelineClient(e);
    try {
      expect((await c2.listGroups()).items[0]).toMatchObject({ region: 'eu' });
      expect((await c2.listConnectors('g')).items[0]).toMatchObject({ future_field: { nested: true } });
    } finally {
      await c2.close();
      await e.stop();
    }
  });
});

describe('section 8: limit is an integer from 1 to 1000, checked before any request', () => {
  for (const limit of [0, 1001, -1, 1.5, Number.NaN, 'abc' as unknown as number, '100' as unknown as number]) {
    it(`limit ${String(limit)} is refused with InvalidRequestError (exit 2), nothing sent`, async () => {
      const before = emu.requests;
      const snapshot = emu.store.snapshot();
      for (const attempt of [
        () => client.listGroups({ limit }),
        () => client.listConnectors('grp_finance', { limit }),
      ]) {
        const error = await failure(attempt());
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect(error).toBeInstanceOf(ConfigurationError);
        expect(error.exitCode).toBe(2);
        expect(error.key).toBe('limit');
      }
      expect(() => client.connectors('grp_finance', { limit })).toThrow(InvalidRequestError);
      expect(() => client.groups({ limit })).toThrow(InvalidRequestError);
      expect(emu.requests).toBe(before);
      expect(emu.store.snapshot()).toBe(snapshot);
    });
  }

  it('limits 1 and 1000 are accepted', async () => {
    expect((await client.listConnectors('grp_analytics', { limit: 1 })).items).toHaveLength(1);
    expect((await client.listConnectors('grp_analytics', { limit: 1000 })).items).toHaveLength(160);
  });

  it("a cursor the service did not issue is the service's 400: InvalidRequestError (exit 2)", async () => {
    const error = await failure(client.listConnectors('grp_finance', { cursor: 'bm90LWEtY3Vyc29y' }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.code).toBe('http_400');
    expect(error.message).toContain('InvalidInput');
  });
});

describe("identifiers '.' and '..' are refused before any request", () => {
  for (const id of ['.', '..']) {
    it(`'${id}' as group_id or transformation_id: InvalidRequestError (exit 2), nothing sent, nothing changed`, async () => {
      const before = emu.requests;
      const snapshot = emu.store.snapshot();
      // Sent, '..' would resolve away: POST v1/transformations/../upgrade is POST v1/upgrade.
      for (const [attempt, key] of [
        [() => client.upgradeTransformation(id), 'transformation_id'],
        [() => client.listConnectors(id), 'group_id'],
      ] as const) {
        const error = await failure(attempt());
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect(error.exitCode).toBe(2);
        expect(error.code).toBe('invalid_identifier');
        expect(error.key).toBe(key);
      }
      expect(emu.requests).toBe(before);
      expect(emu.store.snapshot()).toBe(snapshot);
    });
  }

  it("names that only contain dots ('...', '.x') are still sent, encoded, as one segment", async () => {
    const error = await failure(client.upgradeTransformation('...'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain('/v1/transformations/.../upgrade');
  });
});

describe('section 4: requests send Accept: application/json and HTTP Basic', () => {
  it('on every pipeline operation', async () => {
    await client.listGroups();
    await client.listConnectors('grp_finance');
    await client.upgradeTransformation('tp_hubspot_funnel');
    const last = emu.recentRequests.slice(-3);
    expect(last.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
    for (const r of last) {
      expect(r.accept).toBe('application/json');
      expect(r.authorizationScheme).toBe('Basic');
    }
  });
});

describe('4.3 upgrade transformation package', () => {
  it('200 {code, message} and the package is at its latest version', async () => {
    expect(emu.store.getTransformation('tp_github_activity')).toMatchObject({ version: 1, latest_version: 5 });
    const result = await client.upgradeTransformation('tp_github_activity');
    expect(result).toEqual({ code: 'Success', message: 'Transformation package has been upgraded' });
    expect(emu.store.getTransformation('tp_github_activity')!.version).toBe(5);
  });

  it('404 is a NotFoundError (exit 1) and changes nothing', async () => {
    const snapshot = emu.store.snapshot();
    const error = await failure(client.upgradeTransformation('tp_missing'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.exitCode).toBe(1);
    expect(error.resource).toBe('transformation package');
    expect(error.message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/transformations\/tp_missing\/upgrade: transformation package 'tp_missing' not found/,
    );
    expect(emu.store.snapshot()).toBe(snapshot);
  });

  it('is not retried on 5xx (the upgrade may have happened), only on 429', async () => {
    const c = await pipelineClient(emu);
    try {
      await control(emu, 'POST', '/faults', { path: '/v1/transformations', method: 'POST', status: 502, times: 1 });
      const before = emu.requests;
      const error = await failure(c.upgradeTransformation('tp_stripe_revenue'));
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(emu.requests - before).toBe(1);
      await control(emu, 'POST', '/faults', {
        path: '/v1/transformations',
        method: 'POST',
        status: 429,
        retry_after: 2,
        times: 1,
      });
      expect((await c.upgradeTransformation('tp_stripe_revenue')).code).toBe('Success');
      expect(c.waits).toEqual([2000]);
    } finally {
      await c.close();
    }
  });
});

describe('5.1 HTTP Basic and section 7 error mapping', () => {
  it('wrong secret: AuthenticationError (exit 3), one line, no form of the secret in it', async () => {
    const wrong = 'not-the-secret-9f8e7d';
    const c = await pipelineClient(emu, { apiSecret: wrong });
    try {
      const before = emu.store.snapshot();
      const error = await failure(c.listGroups());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.exitCode).toBe(3);
      expect(error.message).toMatch(
        /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/groups rejected the API key and secret \(HTTP 401 AuthFailed/,
      );
      expect(error.message).not.toContain('\n');
      expectNoLeak(`${error.message} ${error.hint}`, wrong, emu.credentials.apiKey);
      expect(await failure(c.upgradeTransformation('tp_hubspot_funnel'))).toBeInstanceOf(AuthenticationError);
      expect(emu.store.snapshot()).toBe(before);
    } finally {
      await c.close();
    }
  });

  it('403 is an AuthenticationError too (the key lacks a permission)', async () => {
    await control(emu, 'POST', '/faults', {
      path: '/v1/groups',
      status: 403,
      body: { code: 'Forbidden', message: 'No permission' },
    });
    const error = await failure(client.listGroups());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('http_403');
  });

  it('GETs are retried on 503 and 429 with backoff, honouring Retry-After', async () => {
    const c = await pipelineClient(emu);
    try {
      await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 503, times: 2 });
      await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 429, retry_after: 3, times: 1 });
      const before = emu.requests;
      expect((await c.listGroups()).items.length).toBe(6);
      expect(emu.requests - before).toBe(4);
      expect(c.waits).toHaveLength(3);
      expect(c.waits[0]).toBeLessThanOrEqual(250);
      expect(c.waits[1]).toBeLessThanOrEqual(500);
      expect(c.waits[2]).toBe(3000);
    } finally {
      await c.close();
    }
  });

  it('Retry-After is honoured for real (a 1 s wait)', async () => {
    const real = await authenticate(
      {
        auth_method: 'basic',
        username: emu.credentials.apiKey,
        password: emu.credentials.apiSecret,
        base_url: emu.pipelineUrl,
      },
      { source: 'rest' },
    );
    try {
      const c = new PipelineClient(real.source);
      await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 503, retry_after: 1, times: 1 });
      const started = performance.now();
      expect((await c.listGroups()).items).toHaveLength(6);
      expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    } finally {
      await real.close();
    }
  });

  it('retries are bounded: persistent 5xx is a SourceUnreachableError (exit 4)', async () => {
    const c = await pipelineClient(emu);
    try {
      await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 500, times: 10 });
      const before = emu.requests;
      const error = await failure(c.listGroups());
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.exitCode).toBe(4);
      expect(emu.requests - before).toBe(4);
    } finally {
      await c.close();
      await control(emu, 'DELETE', '/faults');
    }
  });

  it('a Retry-After longer than the maximum is not waited for', async () => {
    const c = await pipelineClient(emu);
    try {
      await control(emu, 'POST', '/faults', { path: '/v1/groups', status: 429, retry_after: 3600, times: 1 });
      const error = await failure(c.listGroups());
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.code).toBe('http_429');
      expect(c.waits).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe('records are validated (spec 2.2 with the real wire names)', () => {
  const served = async (item: unknown) => {
    await control(emu, 'POST', '/faults', {
      path: '/v1/groups/grp_finance/connectors',
      status: 200,
      body: { code: 'Success', data: { items: [item] } },
    });
    return failure(client.listConnectors('grp_finance'));
  };
  const good = () => structuredClone(emu.store.getConnector([...emu.store.connectors()][0]!.id)!) as Connector;

  it('daily_sync_time must be a whole hour 00:00–23:00', async () => {
    for (const time of ['14:30', '24:00', '7:00', '']) {
      const error = await served({ ...good(), daily_sync_time: time });
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain('data.items[0].daily_sync_time');
    }
  });

  it('the redirect URI must be http or https', async () => {
    const error = await served({ ...good(), connect_card_config: { redirect_uri: 'ftp://example.com/x' } });
    expect(error.message).toContain('data.items[0].connect_card_config.redirect_uri');
  });

  it('state values must be those of section 3', async () => {
    const c = good();
    const error = await served({ ...c, status: { ...c.status, sync_state: 'running' } });
    expect(error.message).toContain(
      'data.items[0].status.sync_state must be one of "scheduled", "syncing", "paused", "rescheduled"',
    );
  });

  it('sync_frequency is an integer and schedule_type auto or manual', async () => {
    expect((await served({ ...good(), sync_frequency: 1.5 })).message).toContain('sync_frequency');
    expect((await served({ ...good(), schedule_type: 'sometimes' })).message).toContain('schedule_type');
  });

  it('the message names the path, never the value (it may be a token)', async () => {
    const error = await served({ ...good(), connect_card: { token: 'cct_leaky_value_123', uri: 'not a uri' } });
    expect(error.message).toContain('data.items[0].connect_card.uri');
    expect(error.message).not.toContain('cct_leaky_value_123');
  });
});

describe('the connect-card token is a secret', () => {
  it('is registered for redaction when a record carrying it is read', async () => {
    const withToken = [...emu.store.connectors()].filter((c) => c.connect_card?.token);
    expect(withToken.length).toBeGreaterThan(0);
    const target = withToken[0]!;
    await all(client.connectors(target.group_id));
    const token = target.connect_card!.token;
    expect(secrets.contains(`token is ${token}`)).toBe(true);
    expect(secrets.redact(`token is ${token}`)).toBe('token is <redacted:connect_card.token>');
  });
});

describe('runs on the REST source plumbing', () => {
  it('new PipelineClient(source) over authenticate(...) — what a connector update() does', async () => {
    const auth = await authenticate(
      {
        auth_method: 'basic',
        username: emu.credentials.apiKey,
        password: emu.credentials.apiSecret,
        base_url: emu.pipelineUrl,
        probe_path: 'v1/groups?limit=1',
      },
      { source: 'rest' },
    );
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
      const c = new PipelineClient(auth.source);
      let total = 0;
      for await (const g of c.groups()) for await (const _ of c.connectors(g.id)) total++;
      expect(total).toBe(emu.store.connectorCount);
    } finally {
      await auth.close();
    }
  });
});
