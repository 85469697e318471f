// Reading configuration.json: the file, its JSON and its shape (flat, strings only), with syntax errors
// located without quoting the input.
export {
  readConfigurationFile,
  parseConfigurationText,
  checkFlatStringObject,
  MAX_CONFIGURATION_KEYS,
} from './read-configuration-file.js';
export type { RawConfiguration } from './read-configuration-file.js';
export { readTextFile } from './read-text-file.js';
export { withoutByteOrderMark } from './byte-order-mark.js';
