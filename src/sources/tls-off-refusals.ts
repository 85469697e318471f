import { ConfigurationError } from '../errors/index.js';

/**
 * What a database or file source refuses when its own setting turns TLS off (ftp_tls=none,
 * mysql_tls=none, sslmode=disable) while a key that only means something inside TLS is set: a client
 * certificate (presented only in the TLS handshake), or `tls_skip_verify` (nothing to verify). Exit
 * 2, said alike by each source, naming the setting that turned TLS off.
 */
export interface TlsOff {
  /** The source, as its messages name it: "mysql". */
  source: string;
  /** The key that turned TLS off, and its value: `mysql_tls`, `none`. */
  key: string;
  value: string;
  /** How to turn TLS on again: "set 'mysql_tls' to required". */
  turnOn: string;
}

export interface TlsOnlyKeys {
  clientCertificate: boolean;
  skipVerify: boolean;
}

/** Throws when a key that needs TLS is set while `off` turns it off. */
export function refuseTlsOnlyKeys(off: TlsOff, set: TlsOnlyKeys): void {
  const prefix = `invalid configuration for the ${off.source} source`;
  if (set.clientCertificate)
    throw new ConfigurationError(
      `${prefix}: a client certificate is configured but ${off.key}=${off.value}; it is presented only inside TLS`,
      {
        code: 'client_certificate_without_tls',
        key: off.key,
        hint: `${off.turnOn}, or remove the 'tls_client_*' keys`,
      },
    );
  if (set.skipVerify)
    throw new ConfigurationError(
      `${prefix}: 'tls_skip_verify' with ${off.key}=${off.value}; there is no TLS to verify`,
      { code: 'tls_skip_verify_without_tls', key: 'tls_skip_verify', hint: "remove 'tls_skip_verify'" },
    );
}
