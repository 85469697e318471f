export { serve } from './server.js';
export type { RunningServer, ServeOptions } from './server.js';
export { PROTOCOL_DIR, SERVICE, LOADER_OPTIONS } from './protocol.js';
export { configurationForm, labelOf, PROBE_TEST } from './calls/index.js';
export type { ConfigurationFormMessage, FormFieldMessage } from './calls/index.js';
export { RESERVED_STATE_KEY } from './state/index.js';
export { RecordBatch, RecordType, MAX_BATCH_RECORDS, MAX_BATCH_BYTES } from './records/index.js';
