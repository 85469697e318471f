// The token endpoint's door: asking an identity service for a token, and the TLS it is held to.
export { createDpopProver } from './dpop.js';
export type { DpopProver } from './dpop.js';
export {
  checkTokenEndpointUrl,
  createTokenHttpClient,
  identityServiceClient,
  requireClientCertificate,
  tokenEndpointTls,
} from './identity-service-http.js';
export { TokenEndpoint, tokenEndpointFor } from './token-endpoint.js';
export { RETRY_STATUSES, defaultRetryPolicy } from './retry-policy.js';
export { describeError, parseObject, readIamCredentialsToken } from './token-answer.js';
export { oauthErrorName, serverDetail } from './token-refusal.js';
export type {
  OAuthErrorKeys,
  RetryPolicy,
  TokenEndpointOptions,
  TokenRequest,
  TokenResponse,
} from './token-endpoint-options.js';
