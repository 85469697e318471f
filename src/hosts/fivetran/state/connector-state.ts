import type { RawConfiguration } from '../../../config/index.js';
import type { State } from '../../../connector/index.js';
import { ConfigurationError, ConnectorError } from '../../../errors/index.js';
import type { RotatedValues } from './rotated-values.js';
import { seal, unseal } from './sealed-value.js';

/**
 * The connection's state as Fivetran keeps it (`state_json`): the connector's own state, at the top
 * level as it checkpointed it, plus one member of ours when a secret of the configuration rotated,
 * `_connector_auth: { rotated: { <key>: <sealed value> } }` (sealed-value.ts). The connector never
 * sees that member and may not write one of its own.
 */

export const RESERVED_STATE_KEY = '_connector_auth';

export interface RequestState {
  /** What update() gets. */
  state: State;
  /** The rotated values the request's state carried, by key, as rotatedAt. */
  carried: Map<string, number>;
}

/** Reads the request's `state_json`; sealed values it carries join the server's memory when newer. */
export function readRequestState(
  stateJson: string | undefined,
  raw: RawConfiguration,
  rotated: RotatedValues,
): RequestState {
  const carried = new Map<string, number>();
  if (stateJson === undefined || stateJson.trim() === '') return { state: {}, carried };
  let value: unknown;
  try {
    value = JSON.parse(stateJson);
  } catch {
    // JSON.parse's message quotes the text; the state is not repeated.
    throw stateError('is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw stateError('does not hold a JSON object');
  const { [RESERVED_STATE_KEY]: ours, ...state } = value as Record<string, unknown>;
  const sealed = (ours as { rotated?: Record<string, unknown> } | undefined)?.rotated;
  if (sealed && typeof sealed === 'object') {
    for (const [key, text] of Object.entries(sealed)) {
      const configured = raw[key];
      const opened = configured === undefined ? undefined : unseal(text, configured, key);
      if (!opened || configured === undefined) continue;
      carried.set(key, opened.rotatedAt);
      rotated.accept(key, configured, opened);
    }
  }
  return { state, carried };
}

/** Whether the server holds a rotated value newer than the one the request's state carried. */
export function newerThanCarried(raw: RawConfiguration, request: RequestState, rotated: RotatedValues): boolean {
  for (const key of rotated.keys) {
    const configured = raw[key];
    const newest = configured === undefined ? undefined : rotated.newest(key, configured);
    if (newest && newest.rotatedAt > (request.carried.get(key) ?? 0)) return true;
  }
  return false;
}

/**
 * The `state_json` of a checkpoint: the connector's state (`json`, as the run checked it: an object
 * without a secret), refused when it holds our reserved member, with the newest rotated values
 * sealed in.
 */
export function checkpointJson(state: State, json: string, raw: RawConfiguration, rotated: RotatedValues): string {
  if (Object.hasOwn(state, RESERVED_STATE_KEY)) {
    throw new ConnectorError(
      `refusing to checkpoint: the state member '${RESERVED_STATE_KEY}' is reserved by connector-auth serve`,
      {
        code: 'state_reserved_key',
        hint: `rename the connector's '${RESERVED_STATE_KEY}' state member`,
      },
    );
  }
  const sealed: Record<string, string> = {};
  for (const key of rotated.keys) {
    const configured = raw[key];
    const newest = configured === undefined ? undefined : rotated.newest(key, configured);
    if (configured !== undefined && newest && newest.value !== configured) sealed[key] = seal(newest, configured, key);
  }
  if (Object.keys(sealed).length === 0) return json;
  return JSON.stringify({ ...state, [RESERVED_STATE_KEY]: { rotated: sealed } });
}

function stateError(what: string): ConfigurationError {
  return new ConfigurationError(`the state_json Fivetran sent ${what}`, {
    code: 'state_unreadable',
    key: 'state_json',
    hint: "reset the connection's state (a re-sync) in Fivetran",
  });
}
