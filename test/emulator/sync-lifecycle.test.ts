import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/clients/index.js';
import { nextScheduledSync, startOffsetMinutes, type RunningEmulator } from '../../src/emulator/index.js';
import { control, emulator, minimalConnector, pipelineClient } from './support.js';

/**
 * The connector lifecycle of specification 2.2 (rules 1–5) and section 3, driven through the
 * emulator's control routes and observed through the pipeline interface a client reads.
 */

let emu: RunningEmulator;
let client: Awaited<ReturnType<typeof pipelineClient>>;
let clock = Date.parse('2024-06-01T10:00:00.000Z');

beforeAll(async () => {
  emu = await emulator({
    now: () => new Date(clock),
    data: { groups: [{ id: 'g', name: 'G', created_at: '2024-01-01T00:00:00.000Z' }], connectors: [] },
  });
  client = await pipelineClient(emu);
});
afterAll(async () => {
  await client.close();
  await emu.stop();
});

let serial = 0;
async function fresh(overrides: Record<string, unknown> = {}): Promise<string> {
  const id = `conn_${++serial}`;
  const reply = await control(emu, 'POST', '/connectors', { ...minimalConnector(id, 'g'), ...overrides });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return id;
}

/** The connector as the pipeline interface serves it. */
async function served(id: string): Promise<Connector> {
  const { items } = await client.listConnectors('g', { schema: `schema_${id}` });
  expect(items).toHaveLength(1);
  return items[0]!;
}

const sync = (id: string, body: Record<string, unknown> = {}) => control(emu, 'POST', `/connectors/${id}/sync`, body);
const patch = (id: string, body: Record<string, unknown>) => control(emu, 'PATCH', `/connectors/${id}`, body);
const nextSync = async (id: string, after: string) =>
  (await control(emu, 'GET', `/connectors/${id}/next-sync?after=${after}`)).body.data;

describe('rules 2.2.1–2: the historical re-sync flag', () => {
  it('true makes only the next sync historical; it resets once that sync completes; later syncs are incremental', async () => {
    const id = await fresh();
    expect((await patch(id, { is_historical_sync: true })).status).toBe(200);
    expect((await served(id)).status.is_historical_sync).toBe(true);
    expect((await nextSync(id, '2024-06-01T10:00:00Z')).historical).toBe(true);

    const first = await sync(id);
    expect(first.body.data.run.historical).toBe(true);
    expect((await served(id)).status.is_historical_sync).toBe(false);

    const second = await sync(id);
    expect(second.body.data.run.historical).toBe(false);
    expect((await served(id)).status.is_historical_sync).toBe(false);
  });

  it('a historical sync that fails does not complete: the flag stays, and the next sync is historical again', async () => {
    const id = await fresh();
    await patch(id, { is_historical_sync: true });
    expect((await sync(id, { outcome: 'failure' })).body.data.run.historical).toBe(true);
    expect((await served(id)).status.is_historical_sync).toBe(true);
    expect((await sync(id)).body.data.run.historical).toBe(true);
    expect((await served(id)).status.is_historical_sync).toBe(false);
  });

  it('false or absent means no historical re-sync', async () => {
    const id = await fresh();
    expect((await served(id)).status.is_historical_sync).toBe(false);
    expect((await sync(id)).body.data.run.historical).toBe(false);
  });
});

describe('rules 2.2.3–4 and section 8: the daily sync start time', () => {
  it('applies when sync_frequency is 1440: the start is that hour plus the fixed offset', async () => {
    const id = await fresh();
    expect((await patch(id, { sync_frequency: 1440, daily_sync_time: '14:00' })).status).toBe(200);
    const offset = startOffsetMinutes(id);
    const next = await nextSync(id, '2024-06-01T10:00:00.000Z');
    expect(next.reason).toBe('daily_start_time');
    expect(next.next_sync_at).toBe(new Date(Date.UTC(2024, 5, 1, 14, offset)).toISOString());
    // After today's start: tomorrow.
    expect((await nextSync(id, '2024-06-01T15:30:00.000Z')).next_sync_at).toBe(
      new Date(Date.UTC(2024, 5, 2, 14, offset)).toISOString(),
    );
  });

  it('the start time has no effect on the 0–60 minute offset', async () => {
    const id = await fresh({ sync_frequency: 1440 });
    const minutes: number[] = [];
    for (const time of ['00:00', '07:00', '23:00']) {
      await patch(id, { daily_sync_time: time });
      const at = new Date((await nextSync(id, '2024-06-01T00:00:00.000Z')).next_sync_at);
      expect(at.getUTCHours()).toBe(Number(time.slice(0, 2)));
      minutes.push(at.getUTCMinutes());
    }
    expect(new Set(minutes).size).toBe(1);
    expect(minutes[0]).toBeGreaterThanOrEqual(0);
    expect(minutes[0]).toBeLessThan(60);
  });

  it('has no effect when sync_frequency is not 1440, and applies once 1440 is set later', async () => {
    const id = await fresh({ sync_frequency: 360, succeeded_at: '2024-06-01T09:00:00.000Z' });
    await patch(id, { daily_sync_time: '14:00' });
    const next = await nextSync(id, '2024-06-01T10:00:00.000Z');
    expect(next.reason).toBe('frequency');
    expect(next.next_sync_at).toBe('2024-06-01T15:00:00.000Z');
    await patch(id, { sync_frequency: 1440 });
    expect((await nextSync(id, '2024-06-01T10:00:00.000Z')).reason).toBe('daily_start_time');
  });

  it('without a start time, the baseline start time is used', async () => {
    const id = await fresh({ sync_frequency: 1440 });
    const next = await nextSync(id, '2024-06-01T10:00:00.000Z');
    expect(next.reason).toBe('daily_baseline');
    expect(next.next_sync_at).toBe(new Date(Date.UTC(2024, 5, 2, 0, startOffsetMinutes(id))).toISOString());
  });

  for (const time of ['14:30', '24:00', '7:00', '14', 'noon', 1400]) {
    it(`daily_sync_time ${JSON.stringify(time)} is refused with 400 and nothing changes`, async () => {
      const id = await fresh({ sync_frequency: 1440, daily_sync_time: '03:00' });
      const snapshot = emu.store.snapshot();
      const reply = await patch(id, { daily_sync_time: time, sync_frequency: 60 });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        code: 'InvalidInput',
        message: "Invalid 'daily_sync_time': must be a whole hour from 00:00 to 23:00",
      });
      expect(emu.store.snapshot()).toBe(snapshot);
    });
  }

  it('nextScheduledSync is the same rule in-process (00:00 and 23:00 are the bounds)', () => {
    const c = { ...minimalConnector('x', 'g'), sync_frequency: 1440, daily_sync_time: '23:00' };
    expect(nextScheduledSync(c, new Date('2024-06-01T00:00:00Z')).at!.getUTCHours()).toBe(23);
    expect(
      nextScheduledSync({ ...c, daily_sync_time: '00:00' }, new Date('2024-06-01T00:00:00Z')).at!.getUTCHours(),
    ).toBe(0);
  });
});

describe('rule 2.2.5: schedule_type manual disables scheduled syncs', () => {
  it('no scheduled sync is due and a scheduled run is refused (409); a manual run still works; auto re-enables', async () => {
    const id = await fresh({ schedule_type: 'manual' });
    expect((await nextSync(id, '2024-06-01T10:00:00.000Z')).next_sync_at).toBeNull();
    const refused = await sync(id, { trigger: 'scheduled' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('ScheduledSyncDisabled');
    expect((await served(id)).status.sync_state).toBe('scheduled');
    expect((await sync(id, { trigger: 'manual' })).status).toBe(200);
    await patch(id, { schedule_type: 'auto' });
    expect((await sync(id, { trigger: 'scheduled' })).status).toBe(200);
    expect((await nextSync(id, '2024-06-01T10:00:00.000Z')).next_sync_at).not.toBeNull();
  });

  it('schedule_type must be auto or manual', async () => {
    const id = await fresh();
    expect((await patch(id, { schedule_type: 'hourly' })).status).toBe(400);
  });
});

describe('section 3: states move through their enum values', () => {
  it('setup: incomplete → (sync refused) → setup tests pass → connected', async () => {
    const id = await fresh({ status: { setup_state: 'incomplete' } });
    expect((await sync(id)).status).toBe(409);
    await control(emu, 'POST', `/connectors/${id}/setup`, { passed: true });
    expect((await served(id)).status.setup_state).toBe('connected');
    expect((await sync(id)).status).toBe(200);
  });

  it('sync: scheduled → syncing → scheduled; a second start while syncing is refused', async () => {
    const id = await fresh();
    clock += 60_000;
    expect((await control(emu, 'POST', `/connectors/${id}/sync/start`, {})).status).toBe(200);
    expect((await served(id)).status.sync_state).toBe('syncing');
    expect((await control(emu, 'POST', `/connectors/${id}/sync/start`, {})).status).toBe(409);
    clock += 60_000;
    expect((await control(emu, 'POST', `/connectors/${id}/sync/finish`, { outcome: 'success' })).status).toBe(200);
    const after = await served(id);
    expect(after.status.sync_state).toBe('scheduled');
    expect(after.status.update_state).toBe('on_schedule');
    expect(after.succeeded_at).toBe(new Date(clock).toISOString());
  });

  it('failure → update_state delayed, failed_at, a task; success → on_schedule, tasks cleared', async () => {
    const id = await fresh();
    await sync(id, { outcome: 'failure', message: 'source timed out' });
    let c = await served(id);
    expect(c.status.update_state).toBe('delayed');
    expect(c.failed_at).toBe(new Date(clock).toISOString());
    expect(c.status.tasks).toEqual([{ code: 'sync_failed', message: 'source timed out' }]);
    await sync(id);
    c = await served(id);
    expect(c.status.update_state).toBe('on_schedule');
    expect(c.status.tasks).toEqual([]);
  });

  it('broken → setup_state broken; the next success → connected', async () => {
    const id = await fresh();
    await sync(id, { outcome: 'broken' });
    expect((await served(id)).status.setup_state).toBe('broken');
    await sync(id);
    expect((await served(id)).status.setup_state).toBe('connected');
  });

  it('rescheduled → sync_state rescheduled with rescheduled_for; the next start clears it', async () => {
    const id = await fresh();
    await sync(id, { outcome: 'rescheduled' });
    const c = await served(id);
    expect(c.status.sync_state).toBe('rescheduled');
    expect(c.status.rescheduled_for).toBe(new Date(clock + 3_600_000).toISOString());
    await sync(id);
    expect((await served(id)).status.sync_state).toBe('scheduled');
  });

  it('paused → sync_state paused, no sync runs, none is scheduled; unpaused → scheduled', async () => {
    const id = await fresh();
    await patch(id, { paused: true });
    expect((await served(id)).status.sync_state).toBe('paused');
    expect((await sync(id)).body.code).toBe('ConnectorPaused');
    expect((await nextSync(id, '2024-06-01T10:00:00.000Z')).reason).toBe('paused');
    await patch(id, { paused: false });
    expect((await served(id)).status.sync_state).toBe('scheduled');
  });

  it('control routes refuse bad input and unknown connectors', async () => {
    const id = await fresh();
    expect((await sync(id, { outcome: 'exploded' })).status).toBe(400);
    expect((await sync(id, { trigger: 'cron' })).status).toBe(400);
    expect((await sync('nope')).status).toBe(404);
    expect((await patch(id, { sync_frequency: 0 })).status).toBe(400);
    expect((await patch(id, { paused: 'yes' })).status).toBe(400);
  });

  it('PATCH refuses a sync_frequency that is not a safe integer (2**53, 1e300): 400, nothing changed, listing still works', async () => {
    const id = await fresh({ sync_frequency: 360 });
    for (const sync_frequency of [2 ** 53, 1e300, 2 ** 53 + 2]) {
      const reply = await patch(id, { sync_frequency, paused: true });
      expect(reply.status, String(sync_frequency)).toBe(400);
      expect(reply.body.message).toContain('sync_frequency');
    }
    const after = await served(id);
    expect(after.sync_frequency).toBe(360);
    expect(after.paused).toBe(false); // the rest of a refused patch is not applied either
    expect((await client.listConnectors('g')).items.length).toBeGreaterThan(0);
    expect((await patch(id, { sync_frequency: Number.MAX_SAFE_INTEGER })).status).toBe(200);
    expect((await served(id)).sync_frequency).toBe(Number.MAX_SAFE_INTEGER);
  });
});
