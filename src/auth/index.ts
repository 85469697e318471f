export { defineAuthMethod } from './auth-method.js';
export type {
  AuthMethod,
  AuthContext,
  BrowserHandoff,
  Credential,
  MethodAuthorization,
  OutgoingRequest,
  RotatingSecret,
  Timers,
} from './auth-method.js';
export { AUTH_METHOD_NAMES, loadAuthMethod } from './catalogue.js';
export { warnIfCredentialOld, rotationDaysOf, credentialAgeDays, overdueAgeDays } from './credential-age.js';
// Type only: the method's file (and ssh2) load when a configuration names ssh_key.
export {
  staticHeaderCredential,
  isPasswordCredential,
  type PasswordCredential,
  type SshKeyCredential,
} from './static/index.js';
export {
  AWS_METHODS,
  isAwsCredential,
  quietAwsSdkNodeVersionWarning,
  sigv4Signer,
  type AwsCredential,
  type AwsCredentialIdentity,
  type SigV4Signer,
  type SignableRequest,
} from './aws/index.js';
export {
  TokenCache,
  refreshMargin,
  hardMargin,
  isAccessTokenCredential,
  tokenLifetime,
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  writeRecoveryFile,
  recoveryFilePath,
  type AccessTokenCredential,
  type IssuedToken,
  type TokenCacheOptions,
} from './tokens/index.js';
export { TokenEndpoint, defaultRetryPolicy, retryAfterMs } from './token-endpoint/index.js';
export type { TokenResponse, RetryPolicy, OAuthErrorKeys } from './token-endpoint/index.js';
