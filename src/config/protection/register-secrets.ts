import type { z } from 'zod';
import { MIN_SECRET_LENGTH, secrets as defaultRegistry, type SecretRegistry } from '../../secrets/index.js';
import { isSecretKey, schemaDefaults } from '../keys/index.js';
import type { RawConfiguration } from '../file/index.js';

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
    registerUserinfo(key, value, registry);
    if (!isSecretKey(key, options.connectorSecretKeys)) continue;
    keys.add(key);
    registry.register(key, value);
  }
  return keys;
}

/**
 * A URL with a user name or password in it (`https://user:password@host/`) holds a credential
 * whatever its key: the URL keys refuse it (coerce.ts), and the error that says so, or any message
 * that quotes the URL before, must not show it. Both parts are registered, as written and decoded:
 * a token often stands alone as the user name (`https://TOKEN@host`).
 */
function registerUserinfo(key: string, value: string, registry: SecretRegistry): void {
  const url = typeof value === 'string' && value.includes('@') ? URL.parse(value.trim()) : null;
  if (url === null || (url.username === '' && url.password === '')) return;
  // A short user name beside a password is a name ("bob"), not worth a too-short warning.
  const parts =
    url.password !== '' && url.username.length < MIN_SECRET_LENGTH ? [url.password] : [url.username, url.password];
  for (const part of parts) {
    if (part === '') continue;
    registry.register(key, part);
    const decoded = safeDecode(part);
    if (decoded !== part) registry.register(key, decoded);
  }
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(value.trim())?.[1];
  if (userinfo) registry.register(key, userinfo);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Registers the default a schema gives each secret key the configuration leaves out (absent or
 * empty), as a configured value would be: a connector that logs its `signing_secret` prints the
 * default it was built with, which is a credential all the same. Returns those keys.
 */
export function registerSecretDefaults(
  schema: z.ZodType,
  options: { present?: RawConfiguration; connectorSecretKeys?: ReadonlySet<string>; registry?: SecretRegistry } = {},
): Set<string> {
  const registry = options.registry ?? defaultRegistry;
  const keys = new Set<string>();
  for (const [key, value] of schemaDefaults(schema)) {
    if (!isSecretKey(key, options.connectorSecretKeys)) continue;
    const given = options.present?.[key];
    if (given !== undefined && given !== '') continue;
    keys.add(key);
    registry.register(key, value);
  }
  return keys;
}
