import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { defineAuthMethod } from '../auth-method.js';

/**
 * Mutual TLS: the client certificate presented in the handshake is the only credential. Nothing is
 * added to requests; the source's HTTP client carries the certificate (any method does when the
 * `tls_client_*` keys are set, so Bearer over mTLS needs no method of its own). Certificate and key
 * are read and checked here, before any connection, so a bad one fails with exit 2.
 */
export default defineAuthMethod({
  name: 'mtls',
  summary: 'Mutual TLS: a client certificate (PEM or PKCS#12) presented in the TLS handshake',
  // Declared for `validate` and the docs; the context's TLS settings read and check them in depth.
  keys: z
    .object({
      tls_client_certificate: keys.optionalText(),
      tls_client_private_key: keys.optionalText(),
      tls_client_private_key_passphrase: keys.optionalText(),
      tls_client_pkcs12: keys.optionalText(),
      tls_client_pkcs12_passphrase: keys.optionalText(),
    })
    .refine((k) => k.tls_client_certificate || k.tls_client_private_key || k.tls_client_pkcs12, {
      message: "is missing: mtls needs 'tls_client_certificate' with 'tls_client_private_key', or 'tls_client_pkcs12'",
      path: ['tls_client_certificate'],
    }),
  // The certificate's own expiry is checked (and warned about 30 days ahead); this only drives the
  // `credential_issued_at` reminder, which for a certificate is about the yearly renewal.
  rotationDays: 365,
  async create(_keys, context) {
    // A client certificate is only ever sent inside TLS: over http:// the source would get nothing.
    const baseUrl = context.source.base_url;
    if (baseUrl && /^http:/i.test(baseUrl.trim())) {
      throw new ConfigurationError(
        "invalid configuration for auth_method 'mtls': key 'base_url' must start with https:// (the client certificate is presented in the TLS handshake)",
        {
          code: 'mtls_needs_https',
          key: 'base_url',
          hint: "use the https:// address of the source in 'base_url'",
        },
      );
    }
    const tls = await context.tls.read();
    const certificate = tls.clientCertificate!;
    return {
      method: 'mtls',
      description: `mTLS client certificate '${commonName(certificate.subject)}'`,
      rejectedKey: certificate.key,
      // The private key never leaves the process; the certificate sent is public.
      sendsSecret: false,
      // Presented by the source's TLS client from its TLS settings; nothing is added to requests.
      clientCertificate: {
        subject: certificate.subject,
        read: () => ({ cert: tls.cert!, key: tls.key! }),
      },
    };
  },
});

/** "CN=connector, O=Acme" → "connector": the short name for the method's description. */
function commonName(subject: string): string {
  return /(?:^|,\s*)CN=([^,]+)/.exec(subject)?.[1]?.trim() ?? subject;
}
