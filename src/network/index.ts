export { HttpClient } from './http-client.js';
export { headersDeadline } from './headers-deadline.js';
export type { HeadersDeadline } from './headers-deadline.js';
export type { HttpRequestInit } from './http-client.js';
export { routeAgent, urlDestination } from './http-route.js';
export type { HttpRoute } from './http-route.js';
export type { HttpReply } from './http-reply.js';
export { classifyNetworkError } from './classify-network-error.js';
export type { RequestContext } from './classify-network-error.js';
export { readTlsSettings, hasClientCertificate, tlsConnectOptions, unescapeNewlines } from './tls-settings.js';
export type { TlsSettings, TlsReadOptions } from './tls-settings.js';
export { loadClientCertificate, orderChain, EXPIRY_WARNING_DAYS } from './client-certificate.js';
export type {
  ClientCertificate,
  ClientCertificateInput,
  ClientCertificateSummary,
  ClientCertificateKey,
} from './client-certificate.js';
export { certificateDetails, describeCertificate, isoDate } from './certificate-details.js';
export type { CertificateDetails } from './certificate-details.js';
export { inspectServerCertificate, diagnoseClosedConnection } from './server-certificate.js';
export {
  recognizeClientCertificateRefusal,
  clientCertificateRefusedByStatus,
  explainTlsFailure,
  readBodyStart,
  describeServerCertificate,
} from './tls-failure.js';
export type { TlsFailureContext } from './tls-failure.js';
export { clientCertificateRefused } from './classify-network-error.js';
export {
  UNTRUSTED as UNTRUSTED_CERTIFICATE_CODES,
  HOST_MISMATCH as HOST_MISMATCH_CODES,
  SYSTEM as SYSTEM_ERROR_DESCRIPTIONS,
  causeChain,
} from './classify-network-error.js';
export { CLIENT_CERTIFICATE_ALERT } from './server-certificate.js';
export { readSignedUrlExpiry, signedUrlSecretParts, describeSignedUrlFormat } from './signed-url.js';
export type { SignedUrlExpiry, SignedUrlFormat } from './signed-url.js';
export { bracketed, describeUrl, isLoopbackHost, unbracketed } from './target.js';
export { firstLineOf, oneLine } from './one-line.js';
export { prepareSshTunnel, sshTunnelKeys } from './ssh-tunnel.js';
export type { SshTunnel, SshTunnelContext, SshTunnelKeys, TunnelDestination } from './ssh-tunnel.js';
export { checkHostKeyRule, hostKeyCheck, hostKeyMismatch, fingerprintList, sshFingerprint } from './ssh-host-key.js';
export type { HostKeyRule, HostKeyCheck, HostKeyPeer, PresentedHostKey } from './ssh-host-key.js';
export { readSshPrivateKey } from './ssh-private-key.js';
export { sshLogin } from './ssh-login.js';
export type { LoginRecord, SshAuthHandler, SshLoginSecret } from './ssh-login.js';
export { loginRefused } from './ssh-login-refusal.js';
export type { LoginTerms } from './ssh-login-refusal.js';
export type { SshPrivateKey, SshPrivateKeyNames } from './ssh-private-key.js';
