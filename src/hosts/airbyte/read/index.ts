// `read`: the run with RECORD messages and GLOBAL STATE messages.
export { runRead } from './run-read.js';
export { parseInputState, startingState } from './airbyte-state.js';
