export { HttpClient } from './http/http-client.js';
export { headersDeadline } from './http/headers-deadline.js';
export type { HeadersDeadline } from './http/headers-deadline.js';
export type { HttpRequestInit } from './http/http-client.js';
export { routeAgent, urlDestination } from './http-route.js';
export type { HttpRoute } from './http-route.js';
export type { HttpReply } from './http/http-reply.js';
export { classifyNetworkError } from './failures/classify-network-error.js';
export type { RequestContext } from './failures/classify-network-error.js';
export { readTlsSettings, hasClientCertificate, tlsConnectOptions, unescapeNewlines } from './tls/tls-settings.js';
export type { TlsSettings, TlsReadOptions } from './tls/tls-settings.js';
export { loadClientCertificate, orderChain, EXPIRY_WARNING_DAYS } from './tls/client-certificate.js';
export type {
  ClientCertificate,
  ClientCertificateInput,
  ClientCertificateSummary,
  ClientCertificateKey,
} from './tls/client-certificate.js';
export { certificateDetails, describeCertificate, isoDate } from './tls/certificate-details.js';
export type { CertificateDetails } from './tls/certificate-details.js';
export { inspectServerCertificate, diagnoseClosedConnection } from './failures/server-certificate.js';
export {
  recognizeClientCertificateRefusal,
  clientCertificateRefusedByStatus,
  explainTlsFailure,
  readBodyStart,
  describeServerCertificate,
} from './failures/tls-failure.js';
export type { TlsFailureContext } from './failures/tls-failure.js';
export { clientCertificateRefused } from './failures/classify-network-error.js';
export {
  UNTRUSTED as UNTRUSTED_CERTIFICATE_CODES,
  HOST_MISMATCH as HOST_MISMATCH_CODES,
  SYSTEM as SYSTEM_ERROR_DESCRIPTIONS,
  causeChain,
} from './failures/classify-network-error.js';
export { CLIENT_CERTIFICATE_ALERT } from './failures/server-certificate.js';
export { readSignedUrlExpiry, signedUrlSecretParts, describeSignedUrlFormat } from './http/signed-url.js';
export type { SignedUrlExpiry, SignedUrlFormat } from './http/signed-url.js';
export { bracketed, describeUrl, isLoopbackHost, unbracketed } from './target.js';
export { firstLineOf, oneLine } from './one-line.js';
export { prepareSshTunnel, sshTunnelKeys } from './ssh/ssh-tunnel.js';
export type { SshTunnel, SshTunnelContext, SshTunnelKeys, TunnelDestination } from './ssh/ssh-tunnel.js';
export { checkHostKeyRule, hostKeyCheck, hostKeyMismatch, fingerprintList, sshFingerprint } from './ssh/ssh-host-key.js';
export type { HostKeyRule, HostKeyCheck, HostKeyPeer, PresentedHostKey } from './ssh/ssh-host-key.js';
export { readSshPrivateKey } from './ssh/ssh-private-key.js';
export { sshLogin } from './ssh/ssh-login.js';
export type { LoginRecord, SshAuthHandler, SshLoginSecret } from './ssh/ssh-login.js';
export { loginRefused } from './ssh/ssh-login-refusal.js';
export type { LoginTerms } from './ssh/ssh-login-refusal.js';
export type { SshPrivateKey, SshPrivateKeyNames } from './ssh/ssh-private-key.js';
