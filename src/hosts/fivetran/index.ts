export { serve } from './server.js';
export type { RunningServer, ServeOptions } from './server.js';
export { PROTOCOL_DIR, SERVICE, LOADER_OPTIONS } from './protocol.js';
export { configurationForm, labelOf, PROBE_TEST } from './calls/configuration-form.js';
export type { ConfigurationFormMessage, FormFieldMessage } from './calls/configuration-form.js';
export { RESERVED_STATE_KEY } from './state/connector-state.js';
export { RecordBatch, RecordType, MAX_BATCH_RECORDS, MAX_BATCH_BYTES } from './records/record-batch.js';
