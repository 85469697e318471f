import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_NOT_AVAILABLE, type RunningEmulator } from '../../src/emulator/index.js';
import { basic, bearer, control, emulator, raw } from './support.js';

/** The emulator's webhook interface on the wire: the bodies of sections 4.4–4.6 and 7, exactly. */

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.stop());
afterEach(async () => {
  await control(emu, 'PUT', '/settings', {
    webhook_feature_available: true,
    webhook_not_found_as: 'http_404',
    webhook_auth_schemes: ['bearer', 'basic'],
  });
});

const token = () => bearer(emu.credentials.webhookToken);

describe('4.4 fetch', () => {
  it('200 {status: success, data: webhook with id}', async () => {
    const reply = await raw(emu, '/api/v1/webhooks/2', { authorization: token() });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'success',
      data: {
        id: 2,
        name: 'audit everything',
        description: 'every event, for the audit log',
        endpoint: 'https://audit.example.com/ingest',
      },
    });
  });

  it('unknown id: 404 {status: 404}, or 200 {status: not_found} when so configured', async () => {
    expect(await raw(emu, '/api/v1/webhooks/404', { authorization: token() })).toMatchObject({
      status: 404,
      body: { status: 404 },
    });
    await control(emu, 'PUT', '/settings', { webhook_not_found_as: 'status_200' });
    expect(await raw(emu, '/api/v1/webhooks/404', { authorization: token() })).toMatchObject({
      status: 200,
      body: { status: 'not_found' },
    });
  });

  it('a non-integer id names no webhook: 404 {status: 404}', async () => {
    for (const id of ['abc', '1.5', '-1', '1e3'])
      expect(await raw(emu, `/api/v1/webhooks/${id}`, { authorization: token() })).toMatchObject({
        status: 404,
        body: { status: 404 },
      });
  });
});

describe('4.5 list and 4.6 delete', () => {
  it('list: 200 {status: success, data: [...]}', async () => {
    const reply = await raw(emu, '/api/v1/webhooks', { authorization: token() });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('success');
    expect(reply.body.data).toHaveLength(3);
  });

  it('delete: 200 {status: deleted}, then 404; a non-integer id deletes nothing', async () => {
    const e = await emulator();
    try {
      const auth = bearer(e.credentials.webhookToken);
      const snapshot = e.store.snapshot();
      expect(await raw(e, '/api/v1/webhooks/abc', { method: 'DELETE', authorization: auth })).toMatchObject({
        status: 404,
        body: { status: 404 },
      });
      expect(e.store.snapshot()).toBe(snapshot);
      expect(await raw(e, '/api/v1/webhooks/1', { method: 'DELETE', authorization: auth })).toMatchObject({
        status: 200,
        body: { status: 'deleted' },
      });
      expect(await raw(e, '/api/v1/webhooks/1', { method: 'DELETE', authorization: auth })).toMatchObject({
        status: 404,
        body: { status: 404 },
      });
      expect(e.store.listWebhooks().map((w) => w.id)).toEqual([2, 3]);
    } finally {
      await e.stop();
    }
  });
});

describe('5.2 and 7: 401 and 403 bodies', () => {
  for (const [label, authorization] of [
    ['missing', null],
    ['wrong token', bearer('wrong-token-value')],
    ['wrong basic', basic('demo_api_key', 'nope')],
    ['unknown scheme', 'Token demo-webhook-token-8b2d47'],
  ] as const) {
    it(`${label}: 401 {status: 401} on fetch, list and delete, nothing deleted`, async () => {
      const snapshot = emu.store.snapshot();
      for (const [method, path] of [
        ['GET', '/api/v1/webhooks/1'],
        ['GET', '/api/v1/webhooks'],
        ['DELETE', '/api/v1/webhooks/1'],
      ] as const) {
        const reply = await raw(emu, path, { method, authorization });
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual({ status: 401 });
        expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="webhooks", Basic realm="webhooks"');
      }
      expect(emu.store.snapshot()).toBe(snapshot);
    });
  }

  it('Bearer and Basic are both accepted by default; each can be switched off', async () => {
    const viaBasic = basic(emu.credentials.webhookUsername, emu.credentials.webhookPassword);
    expect((await raw(emu, '/api/v1/webhooks', { authorization: token() })).status).toBe(200);
    expect((await raw(emu, '/api/v1/webhooks', { authorization: viaBasic })).status).toBe(200);
    await control(emu, 'PUT', '/settings', { webhook_auth_schemes: ['bearer'] });
    expect((await raw(emu, '/api/v1/webhooks', { authorization: viaBasic })).status).toBe(401);
    await control(emu, 'PUT', '/settings', { webhook_auth_schemes: ['basic'] });
    expect((await raw(emu, '/api/v1/webhooks', { authorization: token() })).status).toBe(401);
    expect((await raw(emu, '/api/v1/webhooks', { authorization: viaBasic })).status).toBe(200);
  });

  it('feature not available: 403 {status: 403, message} on every operation, nothing deleted', async () => {
    await control(emu, 'PUT', '/settings', { webhook_feature_available: false });
    const snapshot = emu.store.snapshot();
    for (const [method, path] of [
      ['GET', '/api/v1/webhooks/1'],
      ['GET', '/api/v1/webhooks'],
      ['DELETE', '/api/v1/webhooks/1'],
    ] as const) {
      const reply = await raw(emu, path, { method, authorization: token() });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ status: 403, message: FEATURE_NOT_AVAILABLE });
    }
    expect(emu.store.snapshot()).toBe(snapshot);
  });

  it('credentials are checked before the feature: a wrong token is still a 401', async () => {
    await control(emu, 'PUT', '/settings', { webhook_feature_available: false });
    expect((await raw(emu, '/api/v1/webhooks', { authorization: bearer('wrong') })).status).toBe(401);
  });
});

describe('emulator-only webhook creation (not in the specification)', () => {
  it('an http:// endpoint is refused with 400 and nothing is created', async () => {
    const snapshot = emu.store.snapshot();
    for (const endpoint of ['http://example.com/hook', 'ftp://example.com', 'not a url', 'https//missing-colon']) {
      const reply = await control(emu, 'POST', '/webhooks', { name: 'x', endpoint });
      expect(reply.status, endpoint).toBe(400);
      expect(reply.body).toEqual({ status: 400, message: 'endpoint must be an HTTPS URL' });
    }
    expect((await control(emu, 'POST', '/webhooks', { endpoint: 'https://ok.example.com' })).status).toBe(400);
    expect(emu.store.snapshot()).toBe(snapshot);
  });

  it('an HTTPS endpoint is created with the next integer id', async () => {
    const e = await emulator();
    try {
      const reply = await control(e, 'POST', '/webhooks', {
        name: 'new',
        endpoint: 'https://new.example.com/hook',
        events: ['sync.failed'],
      });
      expect(reply.status).toBe(201);
      expect(reply.body.data).toEqual({
        id: 4,
        name: 'new',
        endpoint: 'https://new.example.com/hook',
        events: ['sync.failed'],
      });
    } finally {
      await e.stop();
    }
  });
});
