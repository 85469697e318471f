export {
  ExitCode,
  ConnectorAuthError,
  ConnectorError,
  ConfigurationError,
  AuthenticationError,
  SourceUnreachableError,
  SourceIdentityError,
  InterruptedError,
  isConnectorAuthError,
  exitCodeOf,
} from './connector-auth-error.js';
export type {
  ErrorDetails,
  ConnectorCode,
  ConnectorOwnCode,
  ConfigurationCode,
  AuthenticationCode,
  UnreachableCode,
  IdentityCode,
  InterruptedCode,
} from './connector-auth-error.js';
export { systemErrorCode, type SystemErrorCode, type CodeCatalogue } from './codes/index.js';
export { ERROR_CATALOGUE, type ErrorCatalogueEntry } from './error-catalogue.js';
export { closestName, didYouMean } from './closest-name.js';
export { importOptionalPackage, requireOptionalPackage } from './optional-package.js';
