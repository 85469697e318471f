// The partner SDK's calls: ConfigurationForm, Test, Schema and Update, and a failure as a gRPC status.
export { configurationForm, labelOf, PROBE_TEST } from './configuration-form.js';
export type { ConfigurationFormMessage, FormFieldMessage } from './configuration-form.js';
export { runTest } from './test-call.js';
export { runSchema } from './schema-call.js';
export { runUpdate } from './update-call.js';
export { failureLine, statusOf } from './call-status.js';
