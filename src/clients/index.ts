export * from './pipeline-api.js';
export * from './webhooks-api.js';
export { resolvePipelineSettings, resolveWebhookSettings, SETTINGS_ENVIRONMENT } from './client-settings.js';
export type { PipelineSettings, WebhookSettings } from './client-settings.js';
// For the emulator, which assembles page bodies in the same kind of pool.
export { BufferPool } from './transport/index.js';
