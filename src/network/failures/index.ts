// Why a connection failed: network and TLS failures classified into the project's error classes,
// and the look-only handshake that explains a refused or untrusted TLS connection.
export {
  classifyNetworkError,
  clientCertificateRefused,
  causeChain,
  UNTRUSTED,
  HOST_MISMATCH,
  SYSTEM,
} from './classify-network-error.js';
export type { RequestContext } from './classify-network-error.js';
export { inspectServerCertificate, diagnoseClosedConnection, CLIENT_CERTIFICATE_ALERT } from './server-certificate.js';
export {
  recognizeClientCertificateRefusal,
  clientCertificateRefusedByStatus,
  explainTlsFailure,
  readBodyStart,
  REFUSAL_BODY_LIMIT,
  describeServerCertificate,
} from './tls-failure.js';
export type { TlsFailureContext } from './tls-failure.js';
export { certificateForAnotherHost, untrustedCertificate } from './tls-identity-errors.js';
export type { HostMismatchDetail, PresentedCertificate } from './tls-identity-errors.js';
