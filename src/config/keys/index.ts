// The keys: every key the project defines (and which are secret), the keys every configuration may carry,
// and the zod helpers that read one key into a typed value, failing with an error that names it.
export { KEY_CATALOGUE } from './key-catalogue.js';
export { SECRET_NAME_PATTERN, isSecretKey } from './secret-keys.js';
export type { KeySpec } from './key-catalogue.js';
export { parseKeys } from './parse-configuration.js';
export { schemaDefaults, schemaKeys } from './schema-shape.js';
export { carriageProblem } from './carried-values.js';
export { commonKeys } from './common-keys.js';
export type { CommonKeys } from './common-keys.js';
export { sourceFactKeys } from './source-facts.js';
export type { SourceFacts } from './source-facts.js';
export * as keys from './coerce.js';
