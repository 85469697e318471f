// What the pipeline and webhook clients share: the transport they send through, bounded retries,
// reading an answer as JSON (in reused buffers, parsed in pieces) or as a classified error, and the
// errors the clients add.
export { describeRequest } from './http-transport.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './http-transport.js';
export { sendWithRetry } from './retry-policy.js';
export type { RetryDecision, RetryOptions } from './retry-policy.js';
export { bodyField, parseJsonBody, readJsonBody, validate } from './service-reply.js';
export type { JsonBody } from './service-reply.js';
export { NotFoundError, InvalidRequestError, FeatureNotAvailableError } from './client-errors.js';
export { BodyBuffers } from './body-buffers.js';
export { BufferPool } from './buffer-pool.js';
