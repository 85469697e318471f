import { describe, expect, it } from 'vitest';
import { lineProblems } from './support.js';

/**
 * The check every `airbyte` test applies to every line: it must be able to fail. Lines a careless
 * host could print — a field misspelt, a required field missing, a value outside an enum, a line
 * that is not JSON — are refused; the lines the protocol's own examples describe pass.
 */
describe('the derived Airbyte protocol schema', () => {
  it('accepts well-formed messages of each kind the host prints', () => {
    for (const message of [
      { type: 'LOG', log: { level: 'INFO', message: 'hello' } },
      { type: 'RECORD', record: { stream: 'items', data: { id: 1 }, emitted_at: 1700000000000 } },
      {
        type: 'STATE',
        state: {
          type: 'GLOBAL',
          global: {
            shared_state: { cursor: '10' },
            stream_states: [{ stream_descriptor: { name: 'items' }, stream_state: {} }],
          },
          sourceStats: { recordCount: 10 },
        },
      },
      { type: 'CONNECTION_STATUS', connectionStatus: { status: 'FAILED', message: 'no' } },
      { type: 'TRACE', trace: { type: 'ERROR', emitted_at: 1, error: { message: 'x', failure_type: 'config_error' } } },
      {
        type: 'CONTROL',
        control: { type: 'CONNECTOR_CONFIG', emitted_at: 1, connectorConfig: { config: { a: 'b' } } },
      },
    ]) {
      expect(lineProblems(JSON.stringify(message))).toEqual([]);
    }
  });

  it('refuses a misspelt field, a missing required field, a value outside an enum, and a line that is not JSON', () => {
    expect(
      lineProblems(JSON.stringify({ type: 'CONNECTION_STATUS', connection_status: { status: 'FAILED' } })),
    ).toEqual([expect.stringContaining('closed schema')]);
    expect(lineProblems(JSON.stringify({ type: 'RECORD', record: { stream: 'items', data: {} } })).join()).toContain(
      'emitted_at',
    );
    expect(lineProblems(JSON.stringify({ type: 'LOG', log: { level: 'WARNING', message: 'x' } })).join()).toContain(
      'allowedValues',
    );
    expect(
      lineProblems(
        JSON.stringify({
          type: 'TRACE',
          trace: { type: 'ERROR', emitted_at: 1, error: { message: 'x', failure_type: 'user_error' } },
        }),
      ).join(),
    ).toContain('failure_type');
    expect(lineProblems(JSON.stringify({ type: 'STATS' })).join()).toContain('allowedValues');
    expect(lineProblems('12:00:01 INFO     probe succeeded')).toEqual([expect.stringContaining('not JSON')]);
  });
});
