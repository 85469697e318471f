export type { CodeCatalogue, CodeOf } from './code-family.js';
export { systemErrorCode, type SystemErrorCode } from './system-error-code.js';
export { CONNECTOR_CODES } from './connector-codes.js';
export { CONFIGURATION_CODES } from './configuration-codes.js';
export { AUTHENTICATION_CODES } from './authentication-codes.js';
export { UNREACHABLE_CODES } from './unreachable-codes.js';
export { IDENTITY_CODES } from './identity-codes.js';
export { INTERRUPTED_CODES } from './interrupted-codes.js';
