// Keeping a configuration's secrets secret: registered for redaction when it is read, and printed as
// `<redacted:KEY>` wherever the connector's copy is shown.
export { registerConfigurationSecrets, registerSecretDefaults } from './register-secrets.js';
export { protectConfiguration } from './protect-configuration.js';
