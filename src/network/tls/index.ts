// TLS material: what a connection presents (the client certificate) and trusts (the CA), read and
// checked from the tls_* keys before any connection.
export { readTlsSettings, hasClientCertificate, tlsConnectOptions } from './tls-settings.js';
export type { TlsSettings, TlsReadOptions } from './tls-settings.js';
export { loadClientCertificate, orderChain } from './client-certificate.js';
export type { ClientCertificate, ClientCertificateInput, ClientCertificateSummary } from './client-certificate.js';
export type { ClientCertificateKey } from './certificate-material.js';
export { EXPIRY_WARNING_DAYS } from './certificate-validity.js';
export { certificateDetails, describeCertificate, isoDate } from './certificate-details.js';
export type { CertificateDetails } from './certificate-details.js';
export { unescapeNewlines } from './pem-text.js';
