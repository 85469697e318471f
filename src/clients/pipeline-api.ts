/**
 * `connector-auth/pipeline-api`: the typed client of the pipeline management interface.
 *
 *   import { PipelineClient } from 'connector-auth/pipeline-api';
 *   const client = new PipelineClient(source);            // inside update({ source })
 *   for await (const group of client.groups()) …
 */
// The pipeline family's index.ts is the list of what this entry point publishes.
export * from './pipeline/index.js';
export { NotFoundError, InvalidRequestError } from './transport/index.js';
export type { HttpTransport, TransportRequestInit, TransportResponse, RetryOptions } from './transport/index.js';
