// What goes to stdout: the protocol's message types, one message per line (redacted), logs as LOG
// messages and errors as TRACE messages.
export type {
  AirbyteMessage,
  AirbyteStateMessage,
  AirbyteStream,
  FailureType,
  JsonObject,
  LogLevel,
  StreamStatus,
  SyncMode,
} from './protocol.js';
export { openMessageOutput } from './message-output.js';
export type { MessageOutput } from './message-output.js';
export { failureLine, traceMessage } from './failure.js';
export { airbyteLogger } from './airbyte-logger.js';
