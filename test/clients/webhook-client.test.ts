import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, SourceUnreachableError } from '../../src/errors/index.js';
import { FeatureNotAvailableError, InvalidRequestError } from '../../src/clients/index.js';
import { DEMO_CREDENTIALS, FEATURE_NOT_AVAILABLE, type RunningEmulator } from '../../src/emulator/index.js';
import { control, emulator, expectNoLeak, failure, webhookClient } from '../emulator/support.js';

/**
 * The webhook client against the emulator over loopback HTTP: fetch, list and delete (specification
 * 4.4–4.6), both wire forms of every outcome (section 7 rule 1), both Authorization schemes (5.2).
 */

let emu: RunningEmulator;

beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu.stop();
});
afterEach(async () => {
  await control(emu, 'DELETE', '/faults');
  await control(emu, 'PUT', '/settings', {
    webhook_feature_available: true,
    webhook_not_found_as: 'http_404',
    webhook_auth_schemes: ['bearer', 'basic'],
  });
});

async function withClient<T>(
  fn: (c: Awaited<ReturnType<typeof webhookClient>>) => Promise<T>,
  auth?: Parameters<typeof webhookClient>[1],
): Promise<T> {
  const c = await webhookClient(emu, auth);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

describe('4.4 fetch webhook', () => {
  it('200 success: the record with its integer id, name, events and HTTPS endpoint', () =>
    withClient(async (c) => {
      expect(await c.get(1)).toEqual({
        status: 'success',
        webhook: {
          id: 1,
          name: 'on-call alerts',
          description: 'raised and resolved sync alerts to the pager',
          events: ['sync.alert.raised', 'sync.alert.resolved'],
          endpoint: 'https://hooks.example.com/pager/connector-alerts',
        },
      });
    }));

  it('not_found is one result whether it came as a 404 or as 200 {status: not_found}', () =>
    withClient(async (c) => {
      expect(await c.get(999)).toEqual({ status: 'not_found' });
      await control(emu, 'PUT', '/settings', { webhook_not_found_as: 'status_200' });
      expect(await c.get(999)).toEqual({ status: 'not_found' });
    }));

  it('200 {status: error} is the error result', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', {
        path: '/api/v1/webhooks/1',
        status: 200,
        body: { status: 'error', message: 'temporary failure' },
      });
      expect(await c.get(1)).toEqual({ status: 'error', message: 'temporary failure' });
    }));

  it('a non-integer id is refused before any request (InvalidRequestError, exit 2)', () =>
    withClient(async (c) => {
      const before = emu.requests;
      for (const id of [1.5, -1, Number.NaN, 'abc' as unknown as number, '12abc' as unknown as number]) {
        const error = await failure(c.get(id));
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect(error.exitCode).toBe(2);
        expect(await failure(c.delete(id))).toBeInstanceOf(InvalidRequestError);
      }
      expect(emu.requests).toBe(before);
    }));

  it('a record with an http:// endpoint is refused as an invalid response', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', {
        path: '/api/v1/webhooks/1',
        status: 200,
        body: { status: 'success', data: { id: 1, name: 'x', endpoint: 'http://insecure.example.com/hook' } },
      });
      const error = await failure(c.get(1));
      expect(error).toBeInstanceOf(SourceUnreachableError);
      expect(error.message).toContain('data.endpoint must be an https url');
    }));

  it('a record whose id is not an integer is refused as an invalid response', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', {
        path: '/api/v1/webhooks/1',
        status: 200,
        body: { status: 'success', data: { id: '1', name: 'x', endpoint: 'https://example.com/hook' } },
      });
      expect((await failure(c.get(1))).message).toContain('data.id must be number');
    }));
});

describe('4.5 list webhooks', () => {
  it('200 success: every webhook of the workspace; no events means all events', () =>
    withClient(async (c) => {
      const result = await c.list();
      expect(result.status).toBe('success');
      if (result.status !== 'success') return;
      expect(result.webhooks.map((w) => w.name)).toEqual([
        'on-call alerts',
        'audit everything',
        'failed syncs to chat',
      ]);
      expect(result.webhooks[1]!.events).toBeUndefined();
    }));

  it('a list without ids (as the specification shows it) is accepted', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', {
        path: '/api/v1/webhooks',
        status: 200,
        body: {
          status: 'success',
          data: [{ name: 'a', description: 'd', events: ['sync.failed'], endpoint: 'https://a.example.com/' }],
        },
      });
      expect(await c.list()).toEqual({
        status: 'success',
        webhooks: [{ name: 'a', description: 'd', events: ['sync.failed'], endpoint: 'https://a.example.com/' }],
      });
    }));

  it('200 {status: error} is the error result', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', { path: '/api/v1/webhooks', status: 200, body: { status: 'error' } });
      expect(await c.list()).toEqual({ status: 'error' });
    }));
});

describe('4.6 delete webhook', () => {
  it('deleted, then not_found (404 or 200 form), and the webhook is gone', async () => {
    const e = await emulator();
    const c = await webhookClient(e);
    try {
      expect(await c.delete(3)).toEqual({ status: 'deleted' });
      expect(e.store.getWebhook(3)).toBeUndefined();
      expect(await c.delete(3)).toEqual({ status: 'not_found' });
      await control(e, 'PUT', '/settings', { webhook_not_found_as: 'status_200' });
      expect(await c.delete(3)).toEqual({ status: 'not_found' });
      expect(await c.get(3)).toEqual({ status: 'not_found' });
    } finally {
      await c.close();
      await e.stop();
    }
  });

  it('200 {status: error} is the error result and the webhook stays', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', {
        path: '/api/v1/webhooks/2',
        method: 'DELETE',
        status: 200,
        body: { status: 'error' },
      });
      expect(await c.delete(2)).toEqual({ status: 'error' });
      expect(emu.store.getWebhook(2)).toBeDefined();
    }));

  it('is retried on 429 only; a 502 is reported, not retried', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', { path: '/api/v1/webhooks/2', method: 'DELETE', status: 502 });
      const before = emu.requests;
      expect(await failure(c.delete(2))).toBeInstanceOf(SourceUnreachableError);
      expect(emu.requests - before).toBe(1);
      expect(emu.store.getWebhook(2)).toBeDefined();
    }));
});

describe('5.2 authentication: both schemes, 401 and 403', () => {
  it('Bearer (the default) and Basic are both accepted', async () => {
    await withClient(async (c) => expect((await c.list()).status).toBe('success'));
    expect(emu.recentRequests.at(-1)).toMatchObject({ authorizationScheme: 'Bearer', accept: 'application/json' });
    await withClient(async (c) => expect((await c.list()).status).toBe('success'), {
      basic: { username: DEMO_CREDENTIALS.webhookUsername, password: DEMO_CREDENTIALS.webhookPassword },
    });
    expect(emu.recentRequests.at(-1)).toMatchObject({ authorizationScheme: 'Basic' });
  });

  it('an emulator that accepts only Bearer answers 401 to Basic, and the other way round', async () => {
    const basicAuth = {
      basic: { username: DEMO_CREDENTIALS.webhookUsername, password: DEMO_CREDENTIALS.webhookPassword },
    };
    await control(emu, 'PUT', '/settings', { webhook_auth_schemes: ['bearer'] });
    expect(await failure(withClient((c) => c.list(), basicAuth))).toBeInstanceOf(AuthenticationError);
    await withClient(async (c) => expect((await c.list()).status).toBe('success'));
    await control(emu, 'PUT', '/settings', { webhook_auth_schemes: ['basic'] });
    expect(await failure(withClient((c) => c.list()))).toBeInstanceOf(AuthenticationError);
    await withClient(async (c) => expect((await c.list()).status).toBe('success'), basicAuth);
  });

  it('401: AuthenticationError (exit 3) on fetch, list and delete; nothing deleted; no leak', async () => {
    const wrong = 'wrong-webhook-token-4242';
    await withClient(
      async (c) => {
        const snapshot = emu.store.snapshot();
        for (const call of [() => c.get(1), () => c.list(), () => c.delete(1)]) {
          const error = await failure(call());
          expect(error).toBeInstanceOf(AuthenticationError);
          expect(error.exitCode).toBe(3);
          expect(error.code).toBe('http_401');
          expect(error.key).toBe('token');
          expectNoLeak(`${error.message} ${error.hint}`, wrong);
        }
        expect(emu.store.snapshot()).toBe(snapshot);
      },
      { token: wrong },
    );
  });

  it("403: FeatureNotAvailableError carrying the service's message; nothing deleted", async () => {
    await control(emu, 'PUT', '/settings', { webhook_feature_available: false });
    await withClient(async (c) => {
      const snapshot = emu.store.snapshot();
      for (const call of [() => c.get(1), () => c.list(), () => c.delete(1)]) {
        const error = await failure(call());
        expect(error).toBeInstanceOf(FeatureNotAvailableError);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(error.serviceMessage).toBe(FEATURE_NOT_AVAILABLE);
        expect(error.message).toContain(FEATURE_NOT_AVAILABLE);
      }
      expect(emu.store.snapshot()).toBe(snapshot);
    });
  });

  it('GETs are retried on 503', () =>
    withClient(async (c) => {
      await control(emu, 'POST', '/faults', { path: '/api/v1/webhooks', method: 'GET', status: 503, times: 2 });
      expect((await c.list()).status).toBe('success');
      expect(c.waits).toHaveLength(2);
    }));
});
