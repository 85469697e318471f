import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli } from '../helpers/cli.js';

/**
 * Issue 24, point 12: where the emulator departed from its docs or the specification, seen from
 * outside, through the CLI and HTTP as a user sees it: a connector `syncing` in the built-in data
 * (docs: every state), setup tests with details (2.2), timestamps served in UTC with fractional
 * seconds whatever offset they came with (2.1), `Accept: application/json;q=0` refused (406), and
 * each built-in connector created after its group (created_at: docs/interfaces/decisions.md).
 */

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.stop();
});

const env = () => ({
  CONNECTOR_AUTH_BASE_URL: emulator.url,
  CONNECTOR_AUTH_API_KEY: emulator.credentials.apiKey,
  CONNECTOR_AUTH_API_SECRET: emulator.credentials.apiSecret,
});
const basic = () =>
  `Basic ${Buffer.from(`${emulator.credentials.apiKey}:${emulator.credentials.apiSecret}`).toString('base64')}`;

interface Listed {
  id: string;
  created_at: string;
  status: { sync_state: string; setup_state: string; update_state: string };
  setup_tests?: { title: string; status: string; message?: string; details?: unknown }[];
}

async function allConnectors(): Promise<{ group: { id: string; created_at: string }; connectors: Listed[] }[]> {
  const groups = JSON.parse((await cli(['pipeline', 'groups', '--json'], { env: env() })).stdout).items as {
    id: string;
    created_at: string;
  }[];
  return Promise.all(
    groups.map(async (group) => ({
      group,
      connectors: JSON.parse((await cli(['pipeline', 'connectors', group.id, '--json'], { env: env() })).stdout)
        .items as Listed[],
    })),
  );
}

describe('the emulator, as documented and specified', () => {
  it('built-in data: every state value of section 3 (syncing included), setup tests with details, connectors created after their group', async () => {
    const listed = await allConnectors();
    const connectors = listed.flatMap((g) => g.connectors);
    expect(new Set(connectors.map((c) => c.status.sync_state))).toEqual(
      new Set(['scheduled', 'syncing', 'paused', 'rescheduled']),
    );
    expect(new Set(connectors.map((c) => c.status.setup_state))).toEqual(
      new Set(['incomplete', 'connected', 'broken']),
    );
    expect(new Set(connectors.map((c) => c.status.update_state))).toEqual(new Set(['on_schedule', 'delayed']));
    const tests = connectors.flatMap((c) => c.setup_tests ?? []);
    expect(tests.length).toBeGreaterThan(0);
    for (const test of tests) expect(Object.keys(test).sort()).toEqual(['details', 'message', 'status', 'title']);
    for (const { group, connectors: inGroup } of listed)
      for (const c of inGroup) expect(Date.parse(c.created_at)).toBeGreaterThan(Date.parse(group.created_at));
  });

  it('a group created with an offset is served as the same instant in UTC, with milliseconds', async () => {
    const added = await fetch(`${emulator.controlUrl}/groups`, {
      method: 'POST',
      body: JSON.stringify({ id: 'grp_offset', name: 'Offset', created_at: '2024-03-01T10:00:00+02:00' }),
    });
    expect(added.status).toBe(201);
    const groups = JSON.parse((await cli(['pipeline', 'groups', '--json'], { env: env() })).stdout).items as {
      id: string;
      created_at: string;
    }[];
    expect(groups.find((g) => g.id === 'grp_offset')?.created_at).toBe('2024-03-01T08:00:00.000Z');
    for (const group of groups) expect(group.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('Accept: application/json;q=0 is a 406; JSON at any other weight is served', async () => {
    const ask = (accept: string) =>
      fetch(`${emulator.url}/v1/groups?limit=1`, { headers: { authorization: basic(), accept } });
    for (const refused of [
      'application/json;q=0',
      'application/json; q=0.0',
      'text/html, application/json;q=0',
      '*/*, application/json;q=0',
    ]) {
      const answer = await ask(refused);
      expect(answer.status, refused).toBe(406);
      expect(await answer.json()).toMatchObject({ code: 'NotAcceptable' });
    }
    for (const accepted of [
      'application/json',
      'application/json;q=0.1',
      '*/*',
      'application/*;q=0.5',
      'text/html;q=0, application/json',
    ])
      expect((await ask(accepted)).status, accepted).toBe(200);
  });

  it('a setup test run by the control route carries details too', async () => {
    const id = (await allConnectors())[0]!.connectors[0]!.id;
    const run = await fetch(`${emulator.controlUrl}/connectors/${id}/setup`, {
      method: 'POST',
      body: JSON.stringify({ passed: false }),
    });
    expect(run.status).toBe(200);
    const record = (await (await fetch(`${emulator.controlUrl}/connectors/${id}`)).json()) as Listed & {
      data?: Listed;
    };
    const tests = (record.data ?? record).setup_tests!;
    expect(tests[0]).toMatchObject({ status: 'FAILED', details: expect.any(String) });
  });
});
