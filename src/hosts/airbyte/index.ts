export { runAirbyte, reportAirbyteFailure, AIRBYTE_COMMANDS } from './run-airbyte.js';
export type { AirbyteCommand, AirbyteOptions } from './run-airbyte.js';
export { airbyteStream, columnSchema, connectionSpecification } from './catalog/index.js';
export { flatten as flattenAirbyteConfiguration } from './session/index.js';
export { parseInputState, startingState } from './read/index.js';
export type { AirbyteMessage } from './messages/index.js';
