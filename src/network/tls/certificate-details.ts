import type { X509Certificate } from 'node:crypto';

/**
 * The public facts of a certificate that a message may name: who it is for, who signed it, when it
 * stops being valid. A certificate is public; these are safe in any log line or error.
 */
export interface CertificateDetails {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** DNS names and IP addresses of the subjectAltName extension. */
  altNames: string[];
  /** SHA-256 fingerprint, colon-separated hex. */
  fingerprint256: string;
}

export function certificateDetails(certificate: X509Certificate): CertificateDetails {
  return {
    subject: distinguishedName(certificate.subject),
    issuer: distinguishedName(certificate.issuer),
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
    altNames: altNames(certificate.subjectAltName),
    fingerprint256: certificate.fingerprint256,
  };
}

/** "subject 'CN=connector, O=Acme', issued by 'CN=Acme CA', expires 2026-03-01" */
export function describeCertificate(details: Pick<CertificateDetails, 'subject' | 'issuer' | 'notAfter'>): string {
  return `subject '${details.subject}', issued by '${details.issuer}', expires ${isoDate(details.notAfter)}`;
}

/** "2026-03-01 12:00 UTC": a date a person reads, precise enough to renew in time. */
export function isoDate(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'an unknown date' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Node prints a distinguished name one attribute per line ("C=DE\nO=Acme\nCN=x"); messages need one
 * line. The order is kept as the certificate has it.
 */
export function distinguishedName(multiline: string | undefined): string {
  if (!multiline) return '';
  return multiline
    .split('\n')
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
}

function altNames(field: string | undefined): string[] {
  if (!field) return [];
  return field
    .split(/,\s*/)
    .map((entry) => entry.replace(/^(DNS|IP Address):/, '').trim())
    .filter(Boolean);
}
