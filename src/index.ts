/**
 * connector-auth: the public API. A connector file needs only this import:
 *   import { defineConnector, z } from 'connector-auth';
 */
export { z } from 'zod';
export { defineConnector, authenticate, runConnector } from './connector/index.js';
export type {
  ConnectorDefinition,
  ColumnType,
  TableDefinition,
  State,
  UpdateContext,
  Operations,
  Destination,
  StateStore,
  OperationCounts,
  AuthenticateOptions,
  Authenticated,
} from './connector/index.js';
export { defineSource } from './sources/index.js';
export type {
  SourceDefinition,
  ConnectedSource,
  CredentialFor,
  ProbeResult,
  RestSource,
  RestRequestInit,
  SignedUrlSource,
  PostgresSource,
  SslMode,
  RemoteFiles,
  RemoteEntryType,
  SftpSource,
  SftpEntry,
  SftpStat,
  S3Source,
  S3Object,
  S3ObjectStat,
  S3ListOptions,
  S3SdkClient,
  MysqlSource,
  MysqlRow,
  MysqlTls,
  FtpSource,
  FtpEntry,
  FtpStat,
  FtpTls,
} from './sources/index.js';
export { defineAuthMethod, AUTH_METHOD_NAMES } from './auth/index.js';
export type {
  AuthMethod,
  AuthContext,
  ConfiguredTls,
  Credential,
  CredentialWith,
  Capabilities,
  CapabilityName,
  HttpRequestCapability,
  BearerTokenCapability,
  PasswordCapability,
  AwsKeysCapability,
  AwsCredentialIdentity,
  ClientCertificateCapability,
  SshKeyCapability,
  SignedUrlCapability,
  OutgoingRequest,
  Timers,
  AwsCredential,
} from './auth/index.js';
// What a connector's own auth method reuses (docs/auth/custom.md): the token cache (one request per
// lifetime, renewed before expiry), the identity service's HTTP client, a login answer classified.
export { TokenCache, identityServiceClient, loginAnswerError } from './auth/index.js';
export type { IssuedToken, TokenCacheOptions, LoginAnswerContext } from './auth/index.js';
export { HttpClient } from './network/index.js';
export type { HttpReply, HttpRequestInit, HeaderReader } from './network/index.js';
export {
  ExitCode,
  ConnectorAuthError,
  ConnectorError,
  ConfigurationError,
  AuthenticationError,
  SourceUnreachableError,
  SourceIdentityError,
  isConnectorAuthError,
} from './errors/index.js';
export type {
  ConnectorCode,
  ConnectorOwnCode,
  ConfigurationCode,
  AuthenticationCode,
  UnreachableCode,
  IdentityCode,
} from './errors/index.js';
export { createLogger, installRedactingOutput, protectProcessOutput } from './log/index.js';
export type { Logger, LogLevel } from './log/index.js';
export { secrets, SecretRegistry } from './secrets/index.js';
// runConnector takes a configuration read once (readConfiguration), as every host reads its own.
export { readConfigurationFile, readConfiguration, KEY_CATALOGUE } from './config/index.js';
export type { Configuration } from './config/index.js';
