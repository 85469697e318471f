import {
  ConfigurationError,
  ConnectorAuthError,
  AuthenticationError,
  ExitCode,
  type AuthenticationCode,
  type ConnectorCode,
} from '../../errors/index.js';

/**
 * The errors the interface clients add to the project's classes. Each keeps the exit-code contract of
 * src/errors: a caller that only knows ConnectorAuthError still gets a code, a message and an exit code.
 */

/**
 * The service answered 404 for an identifier the caller gave (a group, a transformation package, a
 * webhook). Exit code 1, like `kubectl get` or `gh` for a missing object: the credentials worked and the
 * service was reachable, so 3 and 4 would send a person to the wrong place; the identifier is not a
 * configuration key either, so 2 would too.
 */
export class NotFoundError extends ConnectorAuthError<ConnectorCode> {
  readonly exitCode = ExitCode.connector;
  /** What was looked for, e.g. `group`, `transformation package`, `webhook`. */
  readonly resource: string;
  readonly id: string;

  constructor(
    message: string,
    details: { code: ConnectorCode; resource: string; id: string; hint?: string; cause?: unknown },
  ) {
    super(message, details);
    this.resource = details.resource;
    this.id = details.id;
  }
}

/**
 * The request itself was wrong: a `limit` outside 1..1000, a webhook id that is not an integer, or a
 * 400 from the service. It is a ConfigurationError (exit 2) because it is fixed where the input came
 * from, as a usage error is; `key` names the parameter.
 */
export class InvalidRequestError extends ConfigurationError {}

/**
 * The webhook interface's 403: the credentials are valid but the organization does not have the
 * feature. An AuthenticationError (exit 3, "access denied") that carries the service's own message.
 */
export class FeatureNotAvailableError extends AuthenticationError {
  readonly serviceMessage: string;

  constructor(
    message: string,
    details: { code: AuthenticationCode; key?: string; hint?: string; serviceMessage: string },
  ) {
    super(message, details);
    this.serviceMessage = details.serviceMessage;
  }
}
