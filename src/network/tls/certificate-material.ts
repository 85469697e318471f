import type { KeyObject, X509Certificate } from 'node:crypto';

/** The configuration key the certificate came from: the one to name when it is wrong or refused. */
export type ClientCertificateKey = 'tls_client_certificate' | 'tls_client_pkcs12';

/**
 * What a client certificate's configuration holds once read, whichever form it came in (PEM keys or
 * a PKCS#12 bundle): its certificates in any order and its private keys, still to be paired.
 */
export interface CertificateMaterial {
  certificates: X509Certificate[];
  keys: KeyObject[];
  origin: ClientCertificateKey;
}
