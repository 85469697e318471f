import type { X509Certificate } from 'node:crypto';
import { certificateDetails, isoDate } from './certificate-details.js';
import type { ClientCertificateKey } from './certificate-material.js';
import { invalidTlsKey } from './invalid-tls-key.js';

/**
 * Whether a client certificate can be used now and for what: an expired or not-yet-valid
 * certificate is refused, one close to expiry or not made for client authentication is warned about.
 */

export interface ClientCertificateChecks {
  now: number;
  /** Days before expiry from which a warning is due (default 30). */
  warnDays?: number;
  warn?: (message: string) => void;
}

export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

export function checkValidity(
  chain: readonly X509Certificate[],
  key: ClientCertificateKey,
  checks: ClientCertificateChecks,
): void {
  const warnDays = checks.warnDays ?? EXPIRY_WARNING_DAYS;
  chain.forEach((certificate, index) => {
    const details = certificateDetails(certificate);
    const what = index === 0 ? 'the client certificate' : 'an intermediate certificate of its chain';
    const named = `${what} (subject '${details.subject}', issued by '${details.issuer}')`;
    if (details.notAfter.getTime() <= checks.now)
      throw invalidTlsKey(
        key,
        `holds ${named}, which expired on ${isoDate(details.notAfter)}`,
        `renew the certificate and set '${key}' to the new one`,
        'tls_client_certificate_expired',
      );
    if (details.notBefore.getTime() > checks.now)
      throw invalidTlsKey(
        key,
        `holds ${named}, which is not valid before ${isoDate(details.notBefore)}`,
        "check the machine's clock, or wait until the certificate becomes valid",
        'tls_client_certificate_not_yet_valid',
      );
    const daysLeft = Math.ceil((details.notAfter.getTime() - checks.now) / DAY_MS);
    if (daysLeft <= warnDays)
      checks.warn?.(
        `${named} in '${key}' expires on ${isoDate(details.notAfter)}: ${daysLeft} day${daysLeft === 1 ? '' : 's'} left; renew it before then`,
      );
  });
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_PURPOSE = '2.5.29.37.0';

/**
 * A certificate whose extended key usage leaves out TLS client authentication (a server
 * certificate pasted by mistake, say) is refused by OpenSSL-based servers as "unsupported
 * certificate purpose". Said up front as a warning: some servers do not check.
 */
export function checkPurpose(
  leaf: X509Certificate,
  named: { subject: string; key: ClientCertificateKey },
  checks: ClientCertificateChecks,
): void {
  // Node names the extended key usage list `keyUsage` (undefined when the extension is absent).
  const purposes = (leaf as X509Certificate & { keyUsage?: string[] }).keyUsage;
  if (!purposes || purposes.includes(CLIENT_AUTH) || purposes.includes(ANY_PURPOSE)) return;
  checks.warn?.(
    `the client certificate (subject '${named.subject}') in '${named.key}' is not made for TLS client authentication (its extended key usage lacks clientAuth): servers that check will refuse it`,
  );
}
