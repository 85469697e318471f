// What the connector offers (SPEC, DISCOVER's streams) and what `read` was asked for (the configured
// catalog).
export { connectionSpecification } from './connection-specification.js';
export { airbyteStream, columnSchema, DELETED_AT } from './stream-catalog.js';
export { readConfiguredCatalog, readJsonFile } from './configured-catalog.js';
export type { SelectedStream } from './configured-catalog.js';
