import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_STATES, SYNC_STATES, UPDATE_STATES, connectorSchema, type Connector } from '../../src/clients/index.js';
import { ConfigurationError } from '../../src/errors/index.js';
import { defaultEmulatorData, startEmulator } from '../../src/emulator/index.js';
import { failure, minimalConnector, pipelineClient } from './support.js';

/** The data the emulator is seeded from: the built-in set, and a JSON file given with --data. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'connector-auth-emulator-data-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the built-in data set', () => {
  const data = defaultEmulatorData();
  it('has several groups and ~250 connectors, one group larger than the default page', () => {
    expect(data.groups!.length).toBeGreaterThanOrEqual(5);
    expect(data.connectors!.length).toBe(250);
    const sizes = new Map<string, number>();
    for (const c of data.connectors!) sizes.set(c.group_id, (sizes.get(c.group_id) ?? 0) + 1);
    expect(Math.max(...sizes.values())).toBeGreaterThan(100);
  });

  it('every record is valid, and every state value of section 3 appears', () => {
    for (const c of data.connectors!) expect(connectorSchema.safeParse(c).success, c.id).toBe(true);
    const seen = (pick: (c: Connector) => string) => new Set(data.connectors!.map(pick));
    for (const s of SETUP_STATES) expect(seen((c) => c.status.setup_state)).toContain(s);
    for (const s of SYNC_STATES.filter((s) => s !== 'syncing')) expect(seen((c) => c.status.sync_state)).toContain(s);
    for (const s of UPDATE_STATES) expect(seen((c) => c.status.update_state)).toContain(s);
    expect(data.connectors!.some((c) => c.connect_card?.token)).toBe(true);
    expect(data.connectors!.some((c) => c.schedule_type === 'manual')).toBe(true);
    expect(data.connectors!.some((c) => c.daily_sync_time)).toBe(true);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(defaultEmulatorData())).toBe(JSON.stringify(data));
  });
});

describe('--data FILE', () => {
  it('serves the records of the file, with the credentials it names', async () => {
    const file = join(dir, 'data.json');
    await writeFile(
      file,
      JSON.stringify({
        groups: [{ id: 'team', name: 'Team', created_at: '2024-02-02T02:02:02.222Z' }],
        connectors: [minimalConnector('only_one', 'team')],
        webhooks: [{ name: 'w', endpoint: 'https://w.example.com/' }],
        transformations: ['tp_a'],
        credentials: { api_key: 'file_key', api_secret: 'file-secret-123' },
      }),
    );
    const emu = await startEmulator({ data: file });
    try {
      expect(emu.credentials.apiKey).toBe('file_key');
      const client = await pipelineClient(emu);
      try {
        expect((await client.listConnectors('team')).items.map((c) => c.id)).toEqual(['only_one']);
        expect(await client.upgradeTransformation('tp_a')).toMatchObject({ code: 'Success' });
      } finally {
        await client.close();
      }
      expect(emu.store.getWebhook(1)).toMatchObject({ id: 1, name: 'w' });
    } finally {
      await emu.stop();
    }
  });

  it('reads a data file that starts with a UTF-8 byte order mark', async () => {
    const file = join(dir, 'bom.json');
    const data = {
      groups: [{ id: 'bom', name: 'Bom', created_at: '2024-02-02T02:02:02.222Z' }],
      connectors: [minimalConnector('c_bom', 'bom')],
    };
    await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(data))]));
    const emu = await startEmulator({ data: file });
    try {
      expect(emu.store.getConnector('c_bom')).toMatchObject({ id: 'c_bom', group_id: 'bom' });
    } finally {
      await emu.stop();
    }
  });

  const bad: Array<[string, string, RegExp]> = [
    ['not JSON', '{ nope', /is not valid JSON/],
    [
      'a connector of an unknown group',
      JSON.stringify({ connectors: [minimalConnector('x', 'missing')] }),
      /names group 'missing'/,
    ],
    [
      'a malformed daily_sync_time',
      JSON.stringify({
        groups: [{ id: 'g', name: 'g', created_at: '2024-01-01T00:00:00Z' }],
        connectors: [{ ...minimalConnector('x', 'g'), daily_sync_time: '9:30' }],
      }),
      /connectors\[0\]\.daily_sync_time/,
    ],
    [
      'an http:// webhook',
      JSON.stringify({ webhooks: [{ name: 'w', endpoint: 'http://w.example.com/' }] }),
      /webhooks\[0\]\.endpoint/,
    ],
    [
      'a duplicate group',
      JSON.stringify({
        groups: [
          { id: 'g', name: 'g', created_at: '2024-01-01T00:00:00Z' },
          { id: 'g', name: 'h', created_at: '2024-01-01T00:00:00Z' },
        ],
      }),
      /appears twice/,
    ],
  ];
  for (const [label, text, message] of bad) {
    it(`${label}: ConfigurationError (exit 2) naming the record`, async () => {
      const file = join(dir, `${label.replace(/\W+/g, '-')}.json`);
      await writeFile(file, text);
      const error = await failure(startEmulator({ data: file }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(message);
    });
  }

  it('a missing file: ConfigurationError naming the path', async () => {
    const error = await failure(startEmulator({ data: join(dir, 'nope.json') }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain('nope.json');
  });
});
