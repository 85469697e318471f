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
export { staticHeaderCredential } from './static-header-credential.js';
export { isPasswordCredential, type PasswordCredential } from './password-credential.js';
export { isAccessTokenCredential, type AccessTokenCredential } from './token-credential.js';
// Type only: the method's file (and ssh2) load when a configuration names ssh_key.
export type { SshKeyCredential } from './methods/ssh-key.js';
// The guard a source asks; the `kerberos` addon itself loads only at a credential's first exchange.
export { isKerberosCredential, type GssInitiator, type GssTarget, type KerberosCredential } from './kerberos/index.js';
export { AWS_METHODS, isAwsCredential, type AwsCredential, type AwsCredentialIdentity } from './aws-credential.js';
export { quietAwsSdkNodeVersionWarning } from './aws-sdk-warning.js';
export { sigv4Signer, type SigV4Signer, type SignableRequest } from './aws-sigv4.js';
export { warnIfCredentialOld, rotationDaysOf, credentialAgeDays, overdueAgeDays } from './credential-age.js';
export { TokenCache, refreshMargin, hardMargin } from './token-cache.js';
export type { IssuedToken, TokenCacheOptions } from './token-cache.js';
export { TokenEndpoint, defaultRetryPolicy, retryAfterMs } from './token-endpoint.js';
export { tokenLifetime, DEFAULT_TOKEN_LIFETIME_SECONDS } from './token-lifetime.js';
export type { TokenResponse, RetryPolicy, OAuthErrorKeys } from './token-endpoint.js';
export { writeRecoveryFile, recoveryFilePath } from './recovery-file.js';
