import { describe, expect, it } from 'vitest';
import { parseInputState, startingState } from '../../../src/hosts/airbyte/index.js';
import { createLogger } from '../../../src/log/index.js';

/** --state as Airbyte sends it, and when the saved state may be used. */
const lines: string[] = [];
const log = createLogger({ format: 'json', write: (line) => void lines.push(line) });
const global = (shared: object, streams: string[]) => ({
  type: 'GLOBAL',
  global: { shared_state: shared, stream_states: streams.map((name) => ({ stream_descriptor: { name } })) },
});

describe('parseInputState', () => {
  it('reads an array of state messages (GLOBAL), one message, a LEGACY one, a bare object, and nothing', () => {
    expect(parseInputState([global({ cursor: '10' }, ['items'])])).toEqual({
      state: { cursor: '10' },
      streams: new Set(['items']),
    });
    expect(parseInputState(global({ cursor: '10' }, []))).toEqual({ state: { cursor: '10' }, streams: new Set() });
    expect(parseInputState([{ type: 'LEGACY', data: { cursor: '5' } }])).toEqual({ state: { cursor: '5' } });
    expect(parseInputState({ cursor: '3' })).toEqual({ state: { cursor: '3' } });
    expect(parseInputState([])).toEqual({ state: {} });
  });

  it('refuses per-stream states (this connector never wrote them) and what is not a state', () => {
    expect(() =>
      parseInputState([{ type: 'STREAM', stream: { stream_descriptor: { name: 'items' }, stream_state: {} } }]),
    ).toThrow(/per-stream \(STREAM\) states/);
    expect(() => parseInputState('cursor')).toThrow(/neither an array of state messages nor an object/);
  });
});

describe('startingState', () => {
  const saved = parseInputState([global({ cursor: '10' }, ['items', 'orders'])]);
  it('resumes when every selected stream is incremental and covered by the state', () => {
    expect(
      startingState(
        saved,
        [
          { name: 'items', syncMode: 'incremental' },
          { name: 'orders', syncMode: 'incremental' },
        ],
        log,
      ),
    ).toEqual({ cursor: '10' });
  });

  it('starts from {} when a selected stream is a full refresh, or one the state does not cover (added, or cleared)', () => {
    lines.length = 0;
    expect(startingState(saved, [{ name: 'items', syncMode: 'full_refresh' }], log)).toEqual({});
    expect(
      startingState(
        saved,
        [
          { name: 'items', syncMode: 'incremental' },
          { name: 'refunds', syncMode: 'incremental' },
        ],
        log,
      ),
    ).toEqual({});
    expect(lines.join('')).toContain("'items' is configured full_refresh");
    expect(lines.join('')).toContain("does not cover 'refunds'");
  });
});
