/**
 * `connector-auth/webhooks-api`: the typed client of the sync webhook interface.
 *
 *   import { createWebhookClient } from 'connector-auth/webhooks-api';
 *   const hooks = await createWebhookClient({ baseUrl, token });
 *   const result = await hooks.get(42);   // { status: 'success', webhook } | { status: 'not_found' } | { status: 'error' }
 *
 * A receiver of the events checks each delivery with
 * `verifyWebhookSignature(rawBody, req.headers['x-fivetran-signature-256'], secret)`.
 */
// The webhooks family's index.ts is the list of what this entry point publishes.
export * from './webhooks/index.js';
export { FeatureNotAvailableError, InvalidRequestError } from './transport/index.js';
export type { HttpTransport, TransportRequestInit, TransportResponse, RetryOptions } from './transport/index.js';
