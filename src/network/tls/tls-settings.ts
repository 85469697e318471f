import { z } from 'zod';
import { keys, parseKeys, type RawConfiguration } from '../../config/index.js';
import type { Logger } from '../../log/index.js';
import { secrets as processSecrets, type SecretRegistry } from '../../secrets/index.js';
import { loadClientCertificate, type ClientCertificateSummary } from './client-certificate.js';
import { readCaCertificates } from './pem-text.js';

/**
 * TLS material for any HTTP source, read from the `tls_*` keys. Verification of the server is on
 * unless `tls_skip_verify` is "true", which the source logs as a warning on every run.
 *
 * Whatever the auth method, `tls_client_*` keys mean the client certificate is presented (Bearer
 * over mTLS is common); the certificate and key are checked here, before any connection: expired,
 * not yet valid, key mismatch, wrong passphrase or unreadable → ConfigurationError naming the key.
 */
export interface TlsSettings {
  /** PEM of the CAs that sign the server certificate; like Node, it replaces the default roots. */
  ca?: string;
  /** PEM client certificate chain, leaf first. */
  cert?: string;
  /** PEM client private key, unencrypted (decrypted once, registered as a secret). */
  key?: string;
  /** Kept for callers that pass their own material; never set by readTlsSettings. */
  passphrase?: string;
  /** Kept for callers that pass their own material; a configured PKCS#12 arrives as `cert` + `key`. */
  pfx?: Buffer;
  verify: boolean;
  /** The public facts of the client certificate, for messages when a server refuses it. */
  clientCertificate?: ClientCertificateSummary;
}

/** The settings as Node's TLS connect options (an https Agent's): verification and the material given. */
export function tlsConnectOptions(tls: TlsSettings): {
  rejectUnauthorized: boolean;
  ca?: string;
  cert?: string;
  key?: string;
  pfx?: Buffer;
  passphrase?: string;
} {
  return {
    rejectUnauthorized: tls.verify,
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    ...(tls.pfx ? { pfx: tls.pfx } : {}),
    ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
  };
}

export interface TlsReadOptions {
  /** Receives the warning about a client certificate close to expiry. */
  log?: Pick<Logger, 'warning'>;
  /** The decrypted private key is registered here (default: the process-wide registry), so no output can show it. */
  secrets?: Pick<SecretRegistry, 'register'>;
  now?: () => number;
}

const tlsKeys = z.object({
  tls_ca_certificate: keys.optionalText(),
  tls_client_certificate: keys.optionalText(),
  tls_client_private_key: keys.optionalText(),
  tls_client_private_key_passphrase: keys.optionalText(),
  tls_client_pkcs12: keys.optionalText(),
  tls_client_pkcs12_passphrase: keys.optionalText(),
  tls_skip_verify: keys.boolean(false),
});

/** True when the configuration carries client certificate material (whatever the auth method). */
export function hasClientCertificate(raw: RawConfiguration): boolean {
  return Boolean(raw.tls_client_certificate || raw.tls_client_private_key || raw.tls_client_pkcs12);
}

/**
 * One read per configuration object and caller context: the mtls method and the source both ask,
 * and the expiry warning must be said once.
 */
const cache = new WeakMap<RawConfiguration, { options: TlsReadOptions; settings: Promise<TlsSettings> }>();

export function readTlsSettings(raw: RawConfiguration, options: TlsReadOptions = {}): Promise<TlsSettings> {
  const cached = cache.get(raw);
  if (
    cached &&
    cached.options.log === options.log &&
    cached.options.now === options.now &&
    cached.options.secrets === options.secrets
  )
    return cached.settings;
  const settings = read(raw, options);
  const entry = { options, settings };
  cache.set(raw, entry);
  // A failed read is not cached: the next call reports the same error afresh.
  settings.catch(() => {
    if (cache.get(raw) === entry) cache.delete(raw);
  });
  return settings;
}

async function read(raw: RawConfiguration, options: TlsReadOptions): Promise<TlsSettings> {
  const k = parseKeys(tlsKeys, raw, 'TLS');
  const settings: TlsSettings = {
    ...(k.tls_ca_certificate ? { ca: readCaCertificates(k.tls_ca_certificate) } : {}),
    verify: !k.tls_skip_verify,
  };
  if (!hasClientCertificate(raw)) return settings;
  const registry = options.secrets ?? processSecrets;
  // A private key pasted into the (public) certificate key would not be registered as a secret.
  if (k.tls_client_certificate && /PRIVATE KEY-----/.test(k.tls_client_certificate))
    registry.register('tls_client_certificate', k.tls_client_certificate);
  const client = await loadClientCertificate(
    {
      certificate: k.tls_client_certificate,
      privateKey: k.tls_client_private_key,
      privateKeyPassphrase: k.tls_client_private_key_passphrase,
      pkcs12: k.tls_client_pkcs12,
      pkcs12Passphrase: k.tls_client_pkcs12_passphrase,
    },
    { now: (options.now ?? Date.now)(), ...(options.log ? { warn: (m: string) => options.log!.warning(m) } : {}) },
  );
  // The decrypted key is a new form of the configured secret: register it before anything can print it.
  registry.register(
    client.summary.key === 'tls_client_pkcs12' ? 'tls_client_pkcs12' : 'tls_client_private_key',
    client.privateKeyPem,
  );
  return {
    ...settings,
    cert: client.certificateChainPem,
    key: client.privateKeyPem,
    clientCertificate: client.summary,
  };
}
