import type { AuthContext } from '../../auth/index.js';
import { sourceFactKeys, type Configuration } from '../../config/index.js';
import { hasClientCertificate, readTlsSettings } from '../../network/index.js';

/**
 * The context a method (and then its source) works in, made from the configuration once: the
 * source's keys a method may read, typed, and the TLS settings, read at the first ask and the same
 * for whoever asks next. Nothing downstream sees the raw map.
 */
export function createAuthContext(
  configuration: Configuration,
  given: Omit<AuthContext, 'source' | 'tls'>,
): AuthContext {
  const reading = { log: given.log, now: given.now, secrets: given.secrets };
  const raw = configuration.values;
  return {
    ...given,
    source: configuration.parse(sourceFactKeys, 'the source'),
    tls: { hasClientCertificate: hasClientCertificate(raw), read: () => readTlsSettings(raw, reading) },
  };
}
