export {
  readConfigurationFile,
  parseConfigurationText,
  checkFlatStringObject,
  MAX_CONFIGURATION_KEYS,
} from './read-configuration-file.js';
export type { RawConfiguration } from './read-configuration-file.js';
export { KEY_CATALOGUE, SECRET_NAME_PATTERN, isSecretKey } from './key-catalogue.js';
export type { KeySpec } from './key-catalogue.js';
export { registerConfigurationSecrets } from './register-secrets.js';
export { parseKeys } from './parse-configuration.js';
export { commonKeys } from './common-keys.js';
export type { CommonKeys } from './common-keys.js';
export { sourceFactKeys } from './source-facts.js';
export type { SourceFacts } from './source-facts.js';
export { protectConfiguration } from './protect-configuration.js';
export * as keys from './coerce.js';
export { isPlaceholder, refusePlaceholders } from './placeholders.js';
export { DEMO_VALUES, isPublicDemoValue } from './public-demo-values.js';
export { readTextFile } from './read-text-file.js';
