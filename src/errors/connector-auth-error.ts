/**
 * Every failure the project reports is one of these classes. Each carries a stable `code` for scripts,
 * a one-line `message` for people and a `hint` naming the configuration key to look at. The exit code
 * follows from the class, so the CLI never has to guess.
 *
 * Messages are built from key names, hosts and URLs without query strings — never from values. The
 * redactor still runs over every printed byte as a second line of defence.
 */

export const ExitCode = {
  success: 0,
  connector: 1,
  configuration: 2,
  authentication: 3,
  unreachable: 4,
  identity: 5,
  /** Stopped by SIGINT (Ctrl-C): 128 + 2, as a shell reports it. */
  interrupted: 130,
  /** Stopped by SIGTERM: 128 + 15. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface ErrorDetails {
  /** Stable machine-readable code, e.g. `missing_key`, `http_401`, `tls_untrusted`. */
  code: string;
  /** The configuration key a user should look at first. */
  key?: string;
  /** What to do about it, in one sentence. */
  hint?: string;
  cause?: unknown;
}

export abstract class ConnectorAuthError extends Error {
  abstract readonly exitCode: ExitCode;
  readonly code: string;
  readonly key: string | undefined;
  readonly hint: string | undefined;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.key = details.key;
    this.hint = details.hint;
  }

  override get name(): string {
    return this.constructor.name;
  }

  toJSON(): Record<string, unknown> {
    return {
      error: this.name,
      code: this.code,
      message: this.message,
      ...(this.key ? { key: this.key } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      exit_code: this.exitCode,
    };
  }
}

/** The connector's own code failed (exit 1). */
export class ConnectorError extends ConnectorAuthError {
  readonly exitCode = ExitCode.connector;
}

/** Configuration invalid: unreadable, not JSON, non-string value, missing or malformed key (exit 2). */
export class ConfigurationError extends ConnectorAuthError {
  readonly exitCode = ExitCode.configuration;
}

/** Credentials rejected by the source (exit 3). */
export class AuthenticationError extends ConnectorAuthError {
  readonly exitCode = ExitCode.authentication;
}

/** Source unreachable: DNS, refused, timeout, unexpected probe status (exit 4). */
export class SourceUnreachableError extends ConnectorAuthError {
  readonly exitCode = ExitCode.unreachable;
}

/** Source identity not trusted: TLS verification failed, SSH host key mismatch (exit 5). */
export class SourceIdentityError extends ConnectorAuthError {
  readonly exitCode = ExitCode.identity;
}

/** The run was stopped by a signal (exit 130 for SIGINT, 143 for SIGTERM), after closing what it had open. */
export class InterruptedError extends ConnectorAuthError {
  readonly exitCode: ExitCode;
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM', message: string, details: Omit<ErrorDetails, 'code'> = {}) {
    super(message, { ...details, code: 'interrupted' });
    this.signal = signal;
    this.exitCode = signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
  }
}

/**
 * Duck-typed check: a connector project imports `connector-auth` through the CLI's resolver, which can
 * yield a second module instance (tests run from `src/`, the CLI from `dist/`), so `instanceof` alone lies.
 */
export function isConnectorAuthError(error: unknown): error is ConnectorAuthError {
  return (
    error instanceof ConnectorAuthError ||
    (error instanceof Error &&
      typeof (error as { exitCode?: unknown }).exitCode === 'number' &&
      typeof (error as { code?: unknown }).code === 'string')
  );
}

/** The exit code an arbitrary thrown value maps to: ours by class, anything else is the connector's. */
export function exitCodeOf(error: unknown): ExitCode {
  return isConnectorAuthError(error) ? error.exitCode : ExitCode.connector;
}
