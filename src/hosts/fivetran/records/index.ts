// Update's records on their way to the wire: the stream, its batches, values encoded by hand, the
// user's selection, and the tables the connector declares.
export { UpdateStream, stoppingError } from './update-stream.js';
export type { UpdateCall } from './update-stream.js';
export { RecordBatch, RecordType, MAX_BATCH_RECORDS, MAX_BATCH_BYTES } from './record-batch.js';
export { recordFilter } from './selection.js';
export type { SelectionMessage } from './selection.js';
export { tableMessages } from './tables.js';
export type { TableMessage } from './tables.js';
