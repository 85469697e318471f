// What lasts across calls: the connector's state as state_json, the secrets each call holds, and
// rotated refresh tokens kept per lineage and sealed into the state.
export { CallSecrets } from './call-secrets.js';
export { RESERVED_STATE_KEY, checkpointJson, newerThanCarried, readRequestState } from './connector-state.js';
export { RotatedValues } from './rotated-values.js';
