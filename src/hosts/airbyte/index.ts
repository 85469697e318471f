export { runAirbyte, reportAirbyteFailure, AIRBYTE_COMMANDS } from './run-airbyte.js';
export type { AirbyteCommand, AirbyteOptions } from './run-airbyte.js';
export { connectionSpecification } from './connection-specification.js';
export { airbyteStream, columnSchema } from './stream-catalog.js';
export { flatten as flattenAirbyteConfiguration } from './airbyte-configuration.js';
export { parseInputState, startingState } from './airbyte-state.js';
export type { AirbyteMessage } from './protocol.js';
