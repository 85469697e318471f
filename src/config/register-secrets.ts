import { secrets as defaultRegistry, type SecretRegistry } from '../secrets/index.js';
import { isSecretKey } from './key-catalogue.js';
import type { RawConfiguration } from './read-configuration-file.js';

/**
 * Registers every secret value of a configuration the moment it has been read, before validation,
 * so even a configuration that fails to validate cannot leak through the error that says so.
 * Returns the secret keys, which the parsed configuration hides from `inspect` and `JSON.stringify`.
 */
export function registerConfigurationSecrets(
  raw: RawConfiguration,
  options: { connectorSecretKeys?: ReadonlySet<string>; registry?: SecretRegistry } = {},
): Set<string> {
  const registry = options.registry ?? defaultRegistry;
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    if (!isSecretKey(key, options.connectorSecretKeys)) continue;
    keys.add(key);
    registry.register(key, value);
  }
  return keys;
}
