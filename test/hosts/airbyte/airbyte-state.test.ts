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

const stream = (name: string, state: object) => ({
  type: 'STREAM',
  stream: { stream_descriptor: { name }, stream_state: state },
});

describe('parseInputState', () => {
  it('reads per-stream (STREAM) states, the GLOBAL ones earlier versions sent, one message, a LEGACY one, a bare object, and nothing', () => {
    expect(parseInputState([stream('items', { cursor: '10' }), stream('orders', { cursor: '10' })])).toEqual({
      byStream: new Map([
        ['items', { cursor: '10' }],
        ['orders', { cursor: '10' }],
      ]),
    });
    expect(parseInputState([global({ cursor: '10' }, ['items'])])).toEqual({
      byStream: new Map([['items', { cursor: '10' }]]),
    });
    expect(parseInputState(global({ cursor: '10' }, []))).toEqual({ byStream: new Map() });
    expect(parseInputState([{ type: 'LEGACY', data: { cursor: '5' } }])).toEqual({ state: { cursor: '5' } });
    expect(parseInputState({ cursor: '3' })).toEqual({ state: { cursor: '3' } });
    expect(parseInputState([])).toEqual({ state: {} });
  });

  it('refuses what is not a state', () => {
    expect(() => parseInputState('cursor')).toThrow(/neither an array of state messages nor an object/);
    expect(() => parseInputState([{ type: 'SOMETHING' }])).toThrow(/no STREAM, GLOBAL or LEGACY state message/);
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

  it('per-stream states: resumes from the one state every selected stream saved; starts over when they differ', () => {
    lines.length = 0;
    const both = [
      { name: 'items', syncMode: 'incremental' as const },
      { name: 'orders', syncMode: 'incremental' as const },
    ];
    const same = parseInputState([stream('items', { cursor: '7' }), stream('orders', { cursor: '7' })]);
    expect(startingState(same, both, log)).toEqual({ cursor: '7' });
    // A stream not selected any more may keep an older state: it does not count.
    const withOld = parseInputState([stream('items', { cursor: '7' }), stream('old', { cursor: '1' })]);
    expect(startingState(withOld, [both[0]!], log)).toEqual({ cursor: '7' });
    const reset = parseInputState([stream('items', { cursor: '7' }), stream('orders', {})]);
    expect(startingState(reset, both, log)).toEqual({});
    expect(lines.join('')).toContain("the streams' saved states differ");
  });
});
