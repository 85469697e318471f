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
export { WebhookClient, checkWebhookId } from './webhooks/webhook-client.js';
export type { WebhookClientOptions } from './webhooks/webhook-client.js';
export { createWebhookClient } from './webhooks/create-webhook-client.js';
export type { WebhookConnection, WebhookAuth } from './webhooks/create-webhook-client.js';
export { webhookSchema, listedWebhookSchema, isHttpsUrl, webhookSelects, WEBHOOK_EVENTS } from './webhooks/webhook-records.js';
export { WEBHOOK_SIGNATURE_HEADER, signWebhookPayload, verifyWebhookSignature } from './webhooks/webhook-signature.js';
export type {
  Webhook,
  ListedWebhook,
  WebhookEvent,
  WebhookFetchResult,
  WebhookListResult,
  WebhookDeleteResult,
} from './webhooks/webhook-records.js';
export { FeatureNotAvailableError, InvalidRequestError } from './transport/client-errors.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './transport/http-transport.js';
export type { RetryOptions } from './transport/retry-policy.js';
