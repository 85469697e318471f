import type { State } from '../../../connector/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import type { SelectedStream } from '../catalog/index.js';
import type { AirbyteMessage, AirbyteStateMessage, JsonObject } from '../messages/index.js';

/**
 * State between syncs. A connector keeps ONE state for all its tables (`op.checkpoint(state)`);
 * Airbyte's platform and its acceptance tests expect per-stream states. So each checkpoint is sent
 * as one STREAM state per selected stream, each holding the connector's whole state (with the
 * stream's own record count), and a read resumes from them only when every selected stream hands
 * back the same one. See docs/hosts/airbyte.md.
 */

/** What `--state FILE` held. */
export interface InputState {
  /** One state for every stream: a legacy state (or none). */
  state?: State;
  /** Each stream's state: per-stream (STREAM) states, or the GLOBAL states earlier versions sent. */
  byStream?: Map<string, State>;
}

/**
 * Reads the state as Airbyte sends it: an array of AirbyteStateMessage (the current form), one such
 * message, or the bare state object older platforms sent.
 */
export function parseInputState(given: unknown): InputState {
  const messages = Array.isArray(given)
    ? given
    : given !== null && typeof given === 'object' && 'type' in given
      ? [given]
      : undefined;
  if (messages === undefined) {
    if (given === null || typeof given !== 'object')
      throw invalid('is neither an array of state messages nor an object');
    return { state: given as State };
  }
  if (messages.length === 0) return { state: {} };
  const typed = messages as (AirbyteStateMessage | undefined)[];
  const perStream = typed.filter((m) => m?.type === 'STREAM');
  if (perStream.length > 0) {
    const byStream = new Map<string, State>();
    for (const message of perStream) {
      const name = message?.stream?.stream_descriptor?.name;
      if (typeof name === 'string') byStream.set(name, asState(message?.stream?.stream_state));
    }
    return { byStream };
  }
  const global = typed.find((m) => m?.type === 'GLOBAL');
  if (global) {
    const shared = asState(global.global?.shared_state);
    const names = (global.global?.stream_states ?? []).map((s) => s?.stream_descriptor?.name);
    return { byStream: new Map(names.filter((n): n is string => typeof n === 'string').map((n) => [n, shared])) };
  }
  const legacy = typed.find((m) => m?.type === 'LEGACY' || (m?.type === undefined && m?.data !== undefined));
  if (legacy) return { state: asState(legacy.data) };
  throw invalid('holds no STREAM, GLOBAL or LEGACY state message');
}

/**
 * Where the sync starts. The saved state is used only when it can be for every selected stream:
 * - every selected stream is `incremental` — a full refresh must read its table whole, and the one
 *   state would make the connector skip what it read before;
 * - every selected stream has a saved state, the same one — a stream added to the connection, or one
 *   Airbyte cleared, has not been read under it yet.
 * Otherwise the sync starts from `{}`, and the log says why.
 */
export function startingState(input: InputState, selected: SelectedStream[], log: Logger): State {
  const start = (reason: string): State => (log.info(`starting from an empty state: ${reason}`), {});
  const saved = input.byStream ? commonState(input.byStream, selected) : { state: input.state ?? {} };
  if ('state' in saved && Object.keys(saved.state).length === 0) return {};
  const full = selected.filter((s) => s.syncMode !== 'incremental').map((s) => s.name);
  if (full.length > 0)
    return start(
      `${quoted(full)} ${full.length === 1 ? 'is' : 'are'} configured full_refresh, and the connector keeps one state for all its streams`,
    );
  if ('uncovered' in saved)
    return start(`the saved state does not cover ${quoted(saved.uncovered)} (added to the connection, or cleared)`);
  if ('differing' in saved)
    return start(`the streams' saved states differ (${quoted(saved.differing)}: one was reset in Airbyte)`);
  return saved.state;
}

/** The one state every selected stream saved, or what keeps it from being one. */
function commonState(
  byStream: Map<string, State>,
  selected: SelectedStream[],
): { state: State } | { uncovered: string[] } | { differing: string[] } {
  const uncovered = selected.filter((s) => !byStream.has(s.name)).map((s) => s.name);
  if (uncovered.length === selected.length) return { state: {} };
  if (uncovered.length > 0) return { uncovered };
  const texts = new Set(selected.map((s) => JSON.stringify(byStream.get(s.name))));
  if (texts.size > 1) return { differing: selected.map((s) => s.name) };
  return { state: byStream.get(selected[0]!.name)! };
}

/** One STREAM state per stream, each the connector's whole state, with the stream's records since the last. */
export function stateMessages(
  state: State,
  streams: readonly string[],
  recordCounts: ReadonlyMap<string, number>,
): AirbyteMessage[] {
  return streams.map((name) => ({
    type: 'STATE',
    state: {
      type: 'STREAM',
      stream: { stream_descriptor: { name }, stream_state: state as JsonObject },
      sourceStats: { recordCount: recordCounts.get(name) ?? 0 },
    },
  }));
}

const quoted = (names: string[]) => names.map((n) => `'${n}'`).join(', ');

const asState = (value: unknown): State =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as State) : {};

function invalid(problem: string, hint = 'pass the state Airbyte saved for this connection'): ConfigurationError {
  return new ConfigurationError(`the --state file ${problem}`, { code: 'state_invalid', hint });
}
