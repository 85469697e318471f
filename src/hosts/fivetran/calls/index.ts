// The partner SDK's calls: ConfigurationForm, Test, Schema and Update, and a failure as a gRPC status.
export { configurationForm, PROBE_TEST } from './configuration-form.js';
export { labelOf } from './form-field.js';
export type { ConfigurationFormMessage } from './configuration-form.js';
export type { FormFieldMessage } from './form-field.js';
export { fromForm } from './form-switches.js';
export { runTest } from './test-call.js';
export { runSchema } from './schema-call.js';
export { runUpdate } from './update-call.js';
export { failureLine, statusOf } from './call-status.js';
