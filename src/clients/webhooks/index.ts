// The sync webhook interface's client, its records, and the signature check a receiver needs.
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
