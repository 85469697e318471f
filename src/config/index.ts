export {
  readConfigurationFile,
  parseConfigurationText,
  checkFlatStringObject,
  MAX_CONFIGURATION_KEYS,
  readTextFile,
  withoutByteOrderMark,
} from './file/index.js';
export type { RawConfiguration } from './file/index.js';
export { KEY_CATALOGUE, SECRET_NAME_PATTERN, isSecretKey } from './keys/index.js';
export type { KeySpec } from './keys/index.js';
export { Configuration, readConfiguration, CONFIGURATION_READ_CHANNEL } from './configuration.js';
export type { ReadConfigurationOptions } from './configuration.js';
export { parseKeys, commonKeys, sourceFactKeys, keys, schemaDefaults, carriageProblem } from './keys/index.js';
export type { CommonKeys, SourceFacts } from './keys/index.js';
export { protectConfiguration, registerSecretDefaults } from './protection/index.js';
export { isPlaceholder, refusePlaceholders } from './placeholders.js';
export { keyHint, useKeyPlace } from './key-place.js';
export type { KeyPlace } from './key-place.js';
export { DEMO_VALUES, isPublicDemoValue } from './public-demo-values.js';
