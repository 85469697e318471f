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
export { WebhookClient, checkWebhookId } from './webhook-client.js';
export type { WebhookClientOptions } from './webhook-client.js';
export { createWebhookClient } from './create-webhook-client.js';
export type { WebhookConnection, WebhookAuth } from './create-webhook-client.js';
export { webhookSchema, listedWebhookSchema, isHttpsUrl, webhookSelects, WEBHOOK_EVENTS } from './webhook-records.js';
export { WEBHOOK_SIGNATURE_HEADER, signWebhookPayload, verifyWebhookSignature } from './webhook-signature.js';
export type {
  Webhook,
  ListedWebhook,
  WebhookEvent,
  WebhookFetchResult,
  WebhookListResult,
  WebhookDeleteResult,
} from './webhook-records.js';
export { FeatureNotAvailableError, InvalidRequestError } from './client-errors.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './http-transport.js';
export type { RetryOptions } from './retry-policy.js';
