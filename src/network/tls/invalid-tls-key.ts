import { ConfigurationError, type ConfigurationCode } from '../../errors/index.js';

/** A `tls_*` key that cannot be used, said before any connection, naming the key to fix. */
export function invalidTlsKey(
  key: string,
  what: string,
  hint: string,
  code: ConfigurationCode = 'invalid_client_certificate',
): ConfigurationError {
  return new ConfigurationError(`invalid configuration for mutual TLS: key '${key}' ${what}`, { code, key, hint });
}
