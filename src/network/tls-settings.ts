import { z } from 'zod';
import { keys, parseKeys, type RawConfiguration } from '../config/index.js';

/**
 * TLS material for any HTTP source, read from the `tls_*` keys. Verification of the server is on
 * unless `tls_skip_verify` is "true", which the source logs as a warning on every run.
 */
export interface TlsSettings {
  /** PEM of the CAs that sign the server certificate; like Node, it replaces the default roots. */
  ca?: string;
  /** PEM client certificate chain, leaf first. */
  cert?: string;
  /** PEM client private key. */
  key?: string;
  passphrase?: string;
  /** PKCS#12 bundle (decoded from base64). */
  pfx?: Buffer;
  verify: boolean;
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

/** Reads the TLS keys as given; the mTLS method validates certificate and key in depth. */
export function readTlsSettings(raw: RawConfiguration): TlsSettings {
  const k = parseKeys(tlsKeys, raw, 'TLS');
  return {
    ...(k.tls_ca_certificate ? { ca: unescapeNewlines(k.tls_ca_certificate) } : {}),
    ...(k.tls_client_certificate ? { cert: unescapeNewlines(k.tls_client_certificate) } : {}),
    ...(k.tls_client_private_key ? { key: unescapeNewlines(k.tls_client_private_key) } : {}),
    ...(k.tls_client_pkcs12 ? { pfx: Buffer.from(k.tls_client_pkcs12, 'base64') } : {}),
    ...((k.tls_client_private_key_passphrase ?? k.tls_client_pkcs12_passphrase)
      ? { passphrase: k.tls_client_private_key_passphrase ?? k.tls_client_pkcs12_passphrase }
      : {}),
    verify: !k.tls_skip_verify,
  };
}

/** PEM pasted into one JSON string line often arrives with literal "\n" sequences. */
export function unescapeNewlines(pem: string): string {
  return pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem;
}
