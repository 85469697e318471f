import { exitCodeOf, isConnectorAuthError } from '../errors/index.js';
import { redactedJson } from '../secrets/index.js';
import type { CliIO } from './cli-io.js';

/**
 * One line a person can act on: `error [code]: message — hint`. With --json, the same as an object
 * on stdout, its strings redacted before they are JSON-escaped (a message that quotes an escaped
 * secret would otherwise come out escaped twice). The stack only with --verbose. The output gate
 * redacts whatever is printed.
 */
export function printError(error: unknown, io: CliIO): number {
  const exitCode = exitCodeOf(error);
  if (isConnectorAuthError(error)) {
    if (io.json) io.out(redactedJson({ ok: false, ...error.toJSON() }));
    io.err(`error [${error.code}]: ${error.message}${error.hint ? ` — ${error.hint}` : ''}`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    if (io.json) io.out(redactedJson({ ok: false, error: 'Error', code: 'unexpected', message, exit_code: exitCode }));
    io.err(`error: ${message}`);
  }
  if (io.verbose) printStacks(error, io);
  return exitCode;
}

/**
 * The stack, and the stacks of what caused it: a connector's own exception is the cause of the
 * ConnectorError that reports it, and its stack is the one that points at the connector's code.
 */
function printStacks(error: unknown, io: CliIO): void {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current.stack) io.err(depth === 0 ? current.stack : `caused by: ${current.stack}`);
    current = current.cause;
  }
}
