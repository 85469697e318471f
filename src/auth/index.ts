export { defineAuthMethod } from './auth-method.js';
export type {
  AuthMethod,
  AuthContext,
  BrowserHandoff,
  ConfiguredTls,
  Credential,
  CredentialWith,
  MethodAuthorization,
  RotatingSecret,
  Timers,
} from './auth-method.js';
export type {
  Capabilities,
  CapabilityName,
  OutgoingRequest,
  AnswerHead,
  HttpRequestCapability,
  BearerTokenCapability,
  PasswordCapability,
  AwsKeysCapability,
  AwsCredentialIdentity,
  ClientCertificateCapability,
  SshKeyCapability,
  SignedUrlCapability,
  KerberosCapability,
  GssInitiator,
  GssTarget,
} from './capabilities.js';
export { AUTH_METHOD_NAMES, capabilitiesOf, methodsProviding, loadAuthMethod } from './built-in-methods.js';
export type { AuthMethodName } from './built-in-methods.js';
export { warnIfCredentialOld, rotationDaysOf, credentialAgeDays, overdueAgeDays } from './credential-age.js';
export { staticHeaderCredential } from './static/index.js';
export {
  quietAwsSdkNodeVersionWarning,
  sigv4Signer,
  awsAnswerSaid,
  awsServiceUnavailable,
  clockTooFarOff,
  sdkNetworkFailure,
  secretNotTheKeys,
  type SignatureRefusal,
  type AwsCredential,
  type SigV4Signer,
  type SignableRequest,
} from './aws/index.js';
export {
  TokenCache,
  refreshMargin,
  hardMargin,
  tokenLifetime,
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  writeRecoveryFile,
  recoveryFilePath,
  type IssuedToken,
  type TokenCacheOptions,
} from './tokens/index.js';
export { TokenEndpoint, defaultRetryPolicy, identityServiceClient } from './token-endpoint/index.js';
export { loginAnswerError, type LoginAnswerContext } from './session/index.js';
export type { TokenResponse, RetryPolicy, OAuthErrorKeys } from './token-endpoint/index.js';
