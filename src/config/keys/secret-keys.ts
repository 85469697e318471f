import { KEY_CATALOGUE } from './key-catalogue.js';

/** Names that reveal a secret when no table declares the key. */
export const SECRET_NAME_PATTERN = /secret|password|passphrase|token|private_key|api_key|credential|signature/i;

/**
 * Whether a key's value is a secret: the table's word where it declares the key, the connector's
 * own list next, the name pattern for everything else.
 */
export function isSecretKey(key: string, connectorSecretKeys: ReadonlySet<string> = new Set()): boolean {
  const spec = KEY_CATALOGUE[key];
  if (spec) return spec.secret;
  return connectorSecretKeys.has(key) || SECRET_NAME_PATTERN.test(key);
}
