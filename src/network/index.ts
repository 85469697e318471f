// The network layer's one door; each family (http/, tls/, failures/, ssh/) has its own index.ts.
export { HeaderList, HttpClient, headersDeadline, retryAfterMs, withTransientRetries } from './http/index.js';
export type { HeaderReader, HeadersDeadline, HttpAnswer, HttpRequestInit, HttpReply } from './http/index.js';
export { routeAgent, urlDestination } from './http-route.js';
export type { HttpRoute } from './http-route.js';
export { readSignedUrlExpiry, signedUrlSecretParts, describeSignedUrlFormat } from './http/index.js';
export type { SignedUrlExpiry, SignedUrlFormat } from './http/index.js';
export {
  readTlsSettings,
  hasClientCertificate,
  tlsConnectOptions,
  unescapeNewlines,
  loadClientCertificate,
  orderChain,
  EXPIRY_WARNING_DAYS,
  certificateDetails,
  describeCertificate,
  isoDate,
} from './tls/index.js';
export type {
  TlsSettings,
  TlsReadOptions,
  ClientCertificate,
  ClientCertificateInput,
  ClientCertificateSummary,
  ClientCertificateKey,
  CertificateDetails,
} from './tls/index.js';
export {
  classifyNetworkError,
  clientCertificateRefused,
  causeChain,
  UNTRUSTED as UNTRUSTED_CERTIFICATE_CODES,
  HOST_MISMATCH as HOST_MISMATCH_CODES,
  SYSTEM as SYSTEM_ERROR_DESCRIPTIONS,
  inspectServerCertificate,
  diagnoseClosedConnection,
  CLIENT_CERTIFICATE_ALERT,
  recognizeClientCertificateRefusal,
  clientCertificateRefusedByStatus,
  explainTlsFailure,
  readBodyStart,
  REFUSAL_BODY_LIMIT,
  describeServerCertificate,
  certificateForAnotherHost,
  untrustedCertificate,
} from './failures/index.js';
export type { RequestContext, TlsFailureContext, HostMismatchDetail, PresentedCertificate } from './failures/index.js';
export { bracketed, describeUrl, encryptedOrLoopback, isLoopbackHost, unbracketed } from './target.js';
export { guardPlainHttp, warnTlsUnverified, warnUnencrypted } from './weakened-transport.js';
export type { PlainHttpUse } from './weakened-transport.js';
export { firstLineOf, oneLine } from './one-line.js';
export {
  SshTunnel,
  prepareSshTunnel,
  sshTunnelKeys,
  checkHostKeyRule,
  hostKeyCheck,
  hostKeyMismatch,
  fingerprintList,
  sshFingerprint,
  readSshPrivateKey,
  sshLogin,
  loginRefused,
} from './ssh/index.js';
export type {
  SshTunnelContext,
  SshTunnelKeys,
  TunnelDestination,
  HostKeyRule,
  HostKeyCheck,
  HostKeyPeer,
  PresentedHostKey,
  SshPrivateKey,
  SshPrivateKeyNames,
  LoginRecord,
  SshAuthHandler,
  SshLoginSecret,
  LoginTerms,
} from './ssh/index.js';
