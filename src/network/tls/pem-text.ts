import { X509Certificate } from 'node:crypto';
import { invalidTlsKey } from './invalid-tls-key.js';

/**
 * PEM as it arrives in a configuration value: pasted into one JSON string, sometimes escaped once
 * too often, holding one or several blocks.
 */

/**
 * PEM pasted into one JSON string line often arrives with literal "\n" (or "\r\n") sequences,
 * escaped once more than JSON needs.
 */
export function unescapeNewlines(pem: string): string {
  return pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\r\\n|\\n/g, '\n') : pem;
}

export function pemBlocks(text: string, label: string): string[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----[\\s\\S]*?-----END ${label}-----`, 'g');
  return unescapeNewlines(text).match(pattern) ?? [];
}

/** One certificate block of a key's value; `index` and `count` say which one is unreadable. */
export function parseCertificate(block: string, key: string, index: number, count: number): X509Certificate {
  try {
    return new X509Certificate(block);
  } catch {
    const which = count > 1 ? `certificate ${index + 1} of ${count}` : 'the certificate';
    throw invalidTlsKey(
      key,
      `cannot be read: ${which} is not a valid X.509 PEM block`,
      'paste the certificate exactly as issued, BEGIN and END lines included',
    );
  }
}

/** Parses the PEM of `tls_ca_certificate`; an unreadable CA would fail every handshake as "untrusted". */
export function readCaCertificates(pem: string): string {
  const blocks = pemBlocks(pem, 'CERTIFICATE');
  if (blocks.length === 0)
    throw invalidTlsKey(
      'tls_ca_certificate',
      'holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)',
      'paste the CA certificate in PEM form',
    );
  blocks.forEach((block, index) => parseCertificate(block, 'tls_ca_certificate', index, blocks.length));
  return blocks.join('\n') + '\n';
}
