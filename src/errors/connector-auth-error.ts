/**
 * Every failure the project reports is one of these classes. Each carries a stable `code` for scripts,
 * a one-line `message` for people and a `hint` naming the configuration key to look at. The exit code
 * follows from the class, so the CLI never has to guess.
 *
 * Messages are built from key names, hosts and URLs without query strings — never from values. The
 * redactor still runs over every printed byte as a second line of defence.
 */

import {
  AUTHENTICATION_CODES,
  CONFIGURATION_CODES,
  CONNECTOR_CODES,
  IDENTITY_CODES,
  INTERRUPTED_CODES,
  UNREACHABLE_CODES,
  type CodeOf,
} from './codes/index.js';

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

/** The codes of each class, from its catalogue in `codes/` (docs/errors.md lists them). */
export type ConfigurationCode = CodeOf<typeof CONFIGURATION_CODES>;
export type AuthenticationCode = CodeOf<typeof AUTHENTICATION_CODES>;
export type UnreachableCode = CodeOf<typeof UNREACHABLE_CODES>;
export type IdentityCode = CodeOf<typeof IDENTITY_CODES>;
export type InterruptedCode = CodeOf<typeof INTERRUPTED_CODES>;
/** The framework's own ConnectorError codes. */
export type ConnectorCode = CodeOf<typeof CONNECTOR_CODES>;
/**
 * What ConnectorError takes: the catalogue's codes, or a connector author's own (any string; the
 * `& {}` keeps the catalogue's codes offered by editors). docs/decisions.md, "Typed error codes".
 */
export type ConnectorOwnCode = ConnectorCode | (string & {});

export interface ErrorDetails<Code extends string = string> {
  /** Stable machine-readable code from the class's catalogue, e.g. `missing_key`, `http_401`. */
  code: Code;
  /** The configuration key a user should look at first. */
  key?: string;
  /** What to do about it, in one sentence. */
  hint?: string;
  cause?: unknown;
}

export abstract class ConnectorAuthError<Code extends string = string> extends Error {
  abstract readonly exitCode: ExitCode;
  readonly code: Code;
  readonly key: string | undefined;
  readonly hint: string | undefined;

  constructor(message: string, details: ErrorDetails<Code>) {
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
export class ConnectorError extends ConnectorAuthError<ConnectorOwnCode> {
  readonly exitCode = ExitCode.connector;
}

/** Configuration invalid: unreadable, not JSON, non-string value, missing or malformed key (exit 2). */
export class ConfigurationError extends ConnectorAuthError<ConfigurationCode> {
  readonly exitCode = ExitCode.configuration;
}

/** Credentials rejected by the source (exit 3). */
export class AuthenticationError extends ConnectorAuthError<AuthenticationCode> {
  readonly exitCode = ExitCode.authentication;
}

/** Source unreachable: DNS, refused, timeout, unexpected probe status (exit 4). */
export class SourceUnreachableError extends ConnectorAuthError<UnreachableCode> {
  readonly exitCode = ExitCode.unreachable;
}

/** Source identity not trusted: TLS verification failed, SSH host key mismatch (exit 5). */
export class SourceIdentityError extends ConnectorAuthError<IdentityCode> {
  readonly exitCode = ExitCode.identity;
}

/** The run was stopped by a signal (exit 130 for SIGINT, 143 for SIGTERM), after closing what it had open. */
export class InterruptedError extends ConnectorAuthError<InterruptedCode> {
  readonly exitCode: ExitCode;
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(
    signal: 'SIGINT' | 'SIGTERM',
    message: string,
    details: Omit<ErrorDetails<InterruptedCode>, 'code'> = {},
  ) {
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
