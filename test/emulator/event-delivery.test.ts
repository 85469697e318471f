import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { WEBHOOK_SIGNATURE_HEADER, createWebhookClient, verifyWebhookSignature } from '../../src/clients/index.js';
import { control, emulator, httpsReceiver, minimalConnector } from './support.js';

/**
 * Section 6: events are POSTed to each webhook whose `events` select them (all events when none are
 * given), over HTTPS only. The receiver is a real HTTPS server with a certificate from a throw-away
 * CA made with node-forge; the emulator trusts that CA.
 */

const WEBHOOK_SECRET = 'webhook-signing/+secret?&=5';

let receiver: Awaited<ReturnType<typeof httpsReceiver>>;
let emu: RunningEmulator;

beforeAll(async () => {
  receiver = await httpsReceiver();
  emu = await emulator({
    deliveryCa: receiver.caPem,
    data: {
      groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z' }],
      connectors: [minimalConnector('conn_a', 'g'), minimalConnector('conn_b', 'g')],
      webhooks: [
        {
          id: 1,
          name: 'alerts',
          events: ['sync.alert.raised', 'sync.alert.resolved'],
          endpoint: `${receiver.url}/alerts`,
        },
        { id: 2, name: 'everything', endpoint: `${receiver.url}/all` },
        { id: 3, name: 'failures', events: ['sync.failed'], endpoint: `${receiver.url}/failures` },
        { id: 4, name: 'empty list means all', events: [], endpoint: `${receiver.url}/empty` },
        {
          id: 5,
          name: 'signed',
          events: ['sync.alert.raised'],
          endpoint: `${receiver.url}/signed`,
          secret: WEBHOOK_SECRET,
        },
      ],
    },
  });
});
afterAll(async () => {
  await emu.stop();
  await receiver.stop();
});
beforeEach(() => {
  receiver.received.length = 0;
});

const sync = (id: string, outcome: string) => control(emu, 'POST', `/connectors/${id}/sync`, { outcome });
const at = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.body.event);

describe('section 6: sync alerts', () => {
  it('a failed sync raises sync.alert.raised; the next success sync.alert.resolved', async () => {
    const failed = await sync('conn_a', 'failure');
    expect(failed.status).toBe(200);
    expect(at('/alerts')).toEqual(['sync.alert.raised']);
    const raised = receiver.received.find((r) => r.path === '/alerts')!;
    expect(raised.headers['content-type']).toBe('application/json');
    expect(raised.body).toMatchObject({
      event: 'sync.alert.raised',
      connector_id: 'conn_a',
      connector_type: 'postgres',
      connector_name: 'schema_conn_a',
      group_id: 'g',
    });
    expect(raised.body.created).toMatch(/Z$/);

    receiver.received.length = 0;
    await sync('conn_a', 'success');
    expect(at('/alerts')).toEqual(['sync.alert.resolved']);
  });

  it('a second failure while the alert is open raises nothing new; a success with no alert resolves nothing', async () => {
    await sync('conn_b', 'failure');
    receiver.received.length = 0;
    await sync('conn_b', 'broken');
    expect(at('/alerts')).toEqual([]);
    expect(at('/failures')).toEqual(['sync.failed']);
    await sync('conn_b', 'success');
    receiver.received.length = 0;
    await sync('conn_b', 'success');
    expect(at('/alerts')).toEqual([]);
  });
});

describe('section 6 rules 1–2: events select; none given means all; lifecycle events are notified', () => {
  it('each webhook gets exactly the events it selects, once', async () => {
    await sync('conn_a', 'failure');
    expect(at('/alerts')).toEqual(['sync.alert.raised']);
    expect(at('/failures')).toEqual(['sync.failed']);
    expect(at('/all')).toEqual([
      'sync.triggered',
      'sync.started',
      'sync.failed',
      'sync.completed',
      'sync.alert.raised',
    ]);
    expect(at('/empty')).toEqual(at('/all'));
    await sync('conn_a', 'success');
  });

  it('the control route reports each delivery with the receiver status', async () => {
    receiver.status.code = 500;
    try {
      const reply = await sync('conn_a', 'failure');
      const deliveries = reply.body.data.deliveries as Array<{ webhook_id: number; event: string; status?: number }>;
      expect(deliveries.filter((d) => d.webhook_id === 1)).toEqual([
        expect.objectContaining({ event: 'sync.alert.raised', status: 500 }),
      ]);
    } finally {
      receiver.status.code = 204;
      await sync('conn_a', 'success');
    }
  });
});

describe('section 6 rule 4: the pipeline interface sends no events', () => {
  it('listing and upgrading deliver nothing', async () => {
    const before = emu.deliveries.length;
    const { createPipelineClient } = await import('../../src/clients/index.js');
    const client = await createPipelineClient({
      baseUrl: emu.pipelineUrl,
      apiKey: emu.credentials.apiKey,
      apiSecret: emu.credentials.apiSecret,
    });
    try {
      for await (const _ of client.connectors('g')) void _;
      await client.listGroups();
    } finally {
      await client.close();
    }
    expect(emu.deliveries.length).toBe(before);
    expect(receiver.received).toEqual([]);
  });
});

describe('sections 6 and 8: HTTPS endpoints only', () => {
  it('an emulator that does not trust the receiver CA does not deliver (TLS verified, failure logged)', async () => {
    const strict = await emulator({
      data: {
        groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z' }],
        connectors: [minimalConnector('c', 'g')],
        webhooks: [{ id: 1, name: 'x', endpoint: `${receiver.url}/strict` }],
      },
    });
    try {
      const reply = await control(strict, 'POST', '/connectors/c/sync', { outcome: 'failure' });
      expect(at('/strict')).toEqual([]);
      for (const d of reply.body.data.deliveries) expect(d.error).toMatch(/CERT|SELF_SIGNED|UNABLE/);
    } finally {
      await strict.stop();
    }
  });

  it('a data file with an http:// webhook endpoint is refused', async () => {
    const error = await emulator({
      data: { webhooks: [{ id: 1, name: 'x', endpoint: 'http://example.com/hook' }] },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'emulator_data_invalid' });
    expect((error as Error).message).toContain('webhooks[0].endpoint');
  });
});

describe('signed deliveries (the real service signs with the webhook secret)', () => {
  it('a webhook with a secret gets X-Fivetran-Signature-256, the HMAC-SHA256 of the exact body; one without gets none', async () => {
    await sync('conn_a', 'failure');
    await sync('conn_a', 'success');
    const signed = receiver.received.find((r) => r.path === '/signed')!;
    const signature = signed.headers[WEBHOOK_SIGNATURE_HEADER] as string;
    expect(signature).toMatch(/^[0-9A-F]{64}$/);
    expect(verifyWebhookSignature(signed.raw, signature, WEBHOOK_SECRET)).toBe(true);
    expect(verifyWebhookSignature(signed.raw, signature.toLowerCase(), WEBHOOK_SECRET)).toBe(true);
    // Another secret, a body changed by one character, or re-serialized JSON: refused.
    expect(verifyWebhookSignature(signed.raw, signature, `${WEBHOOK_SECRET}x`)).toBe(false);
    expect(verifyWebhookSignature(signed.raw.replace('conn_a', 'conn_b'), signature, WEBHOOK_SECRET)).toBe(false);
    expect(verifyWebhookSignature(JSON.stringify(signed.body, null, 1), signature, WEBHOOK_SECRET)).toBe(false);
    expect(verifyWebhookSignature(signed.raw, undefined, WEBHOOK_SECRET)).toBe(false);
    expect(verifyWebhookSignature(signed.raw, signature, '')).toBe(false);
    // As Node's req.headers gives it: an array when the header came more than once (then refused).
    expect(verifyWebhookSignature(signed.raw, [signature], WEBHOOK_SECRET)).toBe(true);
    expect(verifyWebhookSignature(signed.raw, [signature, signature], WEBHOOK_SECRET)).toBe(false);
    for (const unsigned of receiver.received.filter((r) => r.path !== '/signed'))
      expect(unsigned.headers[WEBHOOK_SIGNATURE_HEADER]).toBeUndefined();
  });

  it('fetch and list show the secret masked, never its value', async () => {
    const hooks = await createWebhookClient({ baseUrl: emu.webhookUrl, token: emu.credentials.webhookToken });
    try {
      const fetched = await hooks.get(5);
      expect(fetched).toMatchObject({ status: 'success', webhook: { id: 5, secret: '******' } });
      const listed = await hooks.list();
      expect(JSON.stringify(listed)).not.toContain(WEBHOOK_SECRET);
      expect(JSON.stringify(emu.deliveries)).not.toContain(WEBHOOK_SECRET);
    } finally {
      await hooks.close();
    }
  });
});
