import {
  AUTHENTICATION_CODES,
  CONFIGURATION_CODES,
  CONNECTOR_CODES,
  IDENTITY_CODES,
  INTERRUPTED_CODES,
  UNREACHABLE_CODES,
  type CodeCatalogue,
} from './codes/index.js';
import { ExitCode } from './connector-auth-error.js';

/** One error class as docs/errors.md lists it: its name, its exit code(s) and its codes. */
export interface ErrorCatalogueEntry {
  errorClass: string;
  exitCodes: readonly ExitCode[];
  codes: CodeCatalogue;
}

/** Every class's codes, in the order of their exit codes; scripts/errors-doc.ts renders it. */
export const ERROR_CATALOGUE: readonly ErrorCatalogueEntry[] = [
  { errorClass: 'ConnectorError', exitCodes: [ExitCode.connector], codes: CONNECTOR_CODES },
  { errorClass: 'ConfigurationError', exitCodes: [ExitCode.configuration], codes: CONFIGURATION_CODES },
  { errorClass: 'AuthenticationError', exitCodes: [ExitCode.authentication], codes: AUTHENTICATION_CODES },
  { errorClass: 'SourceUnreachableError', exitCodes: [ExitCode.unreachable], codes: UNREACHABLE_CODES },
  { errorClass: 'SourceIdentityError', exitCodes: [ExitCode.identity], codes: IDENTITY_CODES },
  {
    errorClass: 'InterruptedError',
    exitCodes: [ExitCode.interrupted, ExitCode.terminated],
    codes: INTERRUPTED_CODES,
  },
];
