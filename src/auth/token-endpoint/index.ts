// The token endpoint's door: asking an identity service for a token, and the TLS it is held to.
export { createDpopProver } from './dpop.js';
export type { DpopProver } from './dpop.js';
export {
  checkTokenEndpointUrl,
  createTokenHttpClient,
  requireClientCertificate,
  tokenEndpointTls,
} from './identity-service-http.js';
export {
  RETRY_STATUSES,
  TokenEndpoint,
  defaultRetryPolicy,
  describeError,
  oauthErrorName,
  parseObject,
  retryAfterMs,
  serverDetail,
  tokenEndpointFor,
} from './token-endpoint.js';
export type { OAuthErrorKeys, RetryPolicy, TokenRequest, TokenResponse } from './token-endpoint.js';
