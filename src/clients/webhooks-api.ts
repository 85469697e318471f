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
export { WebhookClient, checkWebhookId } from './webhooks/index.js';
export type { WebhookClientOptions } from './webhooks/index.js';
export { createWebhookClient } from './webhooks/index.js';
export type { WebhookConnection, WebhookAuth } from './webhooks/index.js';
export { webhookSchema, listedWebhookSchema, isHttpsUrl, webhookSelects, WEBHOOK_EVENTS } from './webhooks/index.js';
export { WEBHOOK_SIGNATURE_HEADER, signWebhookPayload, verifyWebhookSignature } from './webhooks/index.js';
export type {
  Webhook,
  ListedWebhook,
  WebhookEvent,
  WebhookFetchResult,
  WebhookListResult,
  WebhookDeleteResult,
} from './webhooks/index.js';
export { FeatureNotAvailableError, InvalidRequestError } from './transport/index.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './transport/index.js';
export type { RetryOptions } from './transport/index.js';
