import { SourceIdentityError } from '../errors/index.js';

/**
 * The two ways a server's TLS certificate fails a database or file source (mysql, ftp), said the
 * same way by each: exit 5, naming `host` when a trusted certificate names another host, and
 * `tls_ca_certificate` when the certificate's chain is not trusted.
 */

export function certificateForAnotherHost(target: string, host: string, cause: unknown): SourceIdentityError {
  return new SourceIdentityError(`${target} failed: the server's TLS certificate is not valid for host '${host}'`, {
    code: 'tls_host_mismatch',
    key: 'host',
    hint: `set 'host' to a name the certificate lists, or get a certificate that names '${host}'`,
    cause,
  });
}

/** `why`: Node's code or words for what it did not trust ("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate"). */
export function untrustedCertificate(target: string, why: string, cause: unknown): SourceIdentityError {
  return new SourceIdentityError(`${target} failed: the server's TLS certificate is not trusted (${why})`, {
    code: 'tls_untrusted',
    key: 'tls_ca_certificate',
    hint: `set 'tls_ca_certificate' to the PEM of the CA that signs the server's certificate, or check that 'host' is the right server`,
    cause,
  });
}
