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
export type { ErrorDetails } from './connector-auth-error.js';
export { closestName, didYouMean } from './closest-name.js';
export { importOptionalPackage, requireOptionalPackage } from './optional-package.js';
