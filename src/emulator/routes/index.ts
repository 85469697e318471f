// The HTTP side: the pipeline, webhook, control and example-API routes, what each handler reaches
// (emulator-context.ts), credential checks, injected faults and JSON in and out.
export { handlePipeline } from './pipeline-routes.js';
export { handleWebhooks, FEATURE_NOT_AVAILABLE } from './webhook-routes.js';
export { handleControl } from './control-routes.js';
export { EXAMPLE_API_PATH, handleExampleApi } from './example-api.js';
export { sendJson } from './http-reply.js';
export { FaultInjector } from './faults.js';
export type { WebhookAuthScheme } from './auth-check.js';
export type { EmulatorContext, EmulatorCredentials, EmulatorSettings } from './emulator-context.js';
