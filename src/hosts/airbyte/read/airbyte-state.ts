import type { State } from '../../../connector/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import type { SelectedStream } from '../catalog/index.js';
import type { AirbyteMessage, AirbyteStateMessage, JsonObject } from '../messages/index.js';

/**
 * State between syncs. A connector keeps ONE state for all its tables (`op.checkpoint(state)`), so
 * it travels as Airbyte's GLOBAL state: `global.shared_state` is the connector's state as it was
 * checkpointed, `global.stream_states` lists the streams that state covers (each with an empty
 * `stream_state`: there is no per-stream part). See docs/hosts/airbyte.md.
 */

/** What `--state FILE` held: the connector's state, and the streams it covers when it says so. */
export interface InputState {
  state: State;
  /** undefined: the state does not say (legacy state, or none). */
  streams?: Set<string>;
}

/**
 * Reads the state as Airbyte sends it: an array of AirbyteStateMessage (the current form), one such
 * message, or the bare state object older platforms sent. Per-stream (STREAM) states are refused:
 * this connector never wrote them, and one of them cannot stand for the state of all tables.
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
  const global = messages.find((m: AirbyteStateMessage) => m?.type === 'GLOBAL') as AirbyteStateMessage | undefined;
  if (global) {
    const shared = global.global?.shared_state;
    const streams = new Set(
      (global.global?.stream_states ?? [])
        .map((s) => s?.stream_descriptor?.name)
        .filter((n): n is string => typeof n === 'string'),
    );
    return { state: shared && typeof shared === 'object' ? (shared as State) : {}, streams };
  }
  const legacy = messages.find(
    (m: AirbyteStateMessage) => m?.type === 'LEGACY' || (m?.type === undefined && m?.data !== undefined),
  ) as AirbyteStateMessage | undefined;
  if (legacy) return { state: (legacy.data ?? {}) as State };
  if (messages.some((m: AirbyteStateMessage) => m?.type === 'STREAM')) {
    throw invalid(
      'holds per-stream (STREAM) states; this connector keeps one state for all its streams (GLOBAL)',
      "clear the connection's state in Airbyte (a full sync), then sync again",
    );
  }
  throw invalid('holds no GLOBAL or LEGACY state message');
}

/**
 * Where the sync starts. The saved state is used only when it can be for every selected stream:
 * - every selected stream is `incremental` — a full refresh must read its table whole, and the one
 *   state would make the connector skip what it read before;
 * - the state covers every selected stream — a stream added to the connection, or one Airbyte
 *   cleared (its entry dropped from stream_states), has never been read under this state.
 * Otherwise the sync starts from `{}`, and the log says why.
 */
export function startingState(input: InputState, selected: SelectedStream[], log: Logger): State {
  if (Object.keys(input.state).length === 0) return {};
  const full = selected.filter((s) => s.syncMode !== 'incremental').map((s) => s.name);
  if (full.length > 0) {
    log.info(
      `starting from an empty state: ${full.map((n) => `'${n}'`).join(', ')} ${full.length === 1 ? 'is' : 'are'} configured full_refresh, and the connector keeps one state for all its streams`,
    );
    return {};
  }
  const uncovered = input.streams ? selected.filter((s) => !input.streams!.has(s.name)).map((s) => s.name) : [];
  if (uncovered.length > 0) {
    log.info(
      `starting from an empty state: the saved state does not cover ${uncovered.map((n) => `'${n}'`).join(', ')} (added to the connection, or cleared)`,
    );
    return {};
  }
  return input.state;
}

export function stateMessage(state: State, streams: readonly string[], recordCount: number): AirbyteMessage {
  return {
    type: 'STATE',
    state: {
      type: 'GLOBAL',
      global: {
        shared_state: state as JsonObject,
        stream_states: streams.map((name) => ({ stream_descriptor: { name }, stream_state: {} })),
      },
      sourceStats: { recordCount },
    },
  };
}

function invalid(problem: string, hint = 'pass the state Airbyte saved for this connection'): ConfigurationError {
  return new ConfigurationError(`the --state file ${problem}`, { code: 'state_invalid', hint });
}
