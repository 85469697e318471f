import { ExitCode, exitCodeOf, isConnectorAuthError } from '../../../errors/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { AirbyteMessage, FailureType } from './protocol.js';

/**
 * How a failure reaches Airbyte. `config_error` tells the user to fix the connection's settings
 * (Airbyte does not retry it): a configuration the schemas refuse, credentials the source rejects,
 * and a source whose identity is not trusted — the fix there is a key too (`tls_ca_certificate`,
 * `host_key_fingerprint`), and a task the connector raised (`op.task`). Everything else is
 * `system_error`: an unreachable source, the
 * connector's own code, anything unexpected.
 */
export function failureType(error: unknown): FailureType {
  // By exit code, the errors' stable contract: a connector project's own import of connector-auth may
  // be a second module instance, whose classes `instanceof` does not know.
  if (!isConnectorAuthError(error)) return 'system_error';
  // A task the connector raised asks the user to act, as a setting to fix does.
  return USER_FIXES.has(error.exitCode) || error.code === 'connector_task' ? 'config_error' : 'system_error';
}

/** A configuration refused, credentials rejected, a source whose identity is not trusted. */
const USER_FIXES: ReadonlySet<number> = new Set([ExitCode.configuration, ExitCode.authentication, ExitCode.identity]);

/** Our one line, as the CLI prints it: `error [code]: message — hint` (the hint names the key to fix). */
export function failureLine(error: unknown): string {
  if (isConnectorAuthError(error))
    return `error [${error.code}]: ${error.message}${error.hint ? ` — ${error.hint}` : ''}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

/** A TRACE message of type ERROR; the stack (and the stacks of its causes) only when asked for. */
export function traceMessage(
  error: unknown,
  registry: SecretRegistry,
  options: { verbose?: boolean } = {},
): AirbyteMessage {
  const stack = options.verbose ? stacks(error) : undefined;
  return {
    type: 'TRACE',
    trace: {
      type: 'ERROR',
      emitted_at: Date.now(),
      error: {
        message: registry.redact(failureLine(error)),
        internal_message: isConnectorAuthError(error)
          ? `${error.name} ${error.code} (exit ${error.exitCode})`
          : `unexpected (exit ${exitCodeOf(error)})`,
        failure_type: failureType(error),
        ...(stack ? { stack_trace: registry.redact(stack) } : {}),
      },
    },
  };
}

function stacks(error: unknown): string | undefined {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current.stack) parts.push(depth === 0 ? current.stack : `caused by: ${current.stack}`);
    current = current.cause;
  }
  return parts.length ? parts.join('\n') : undefined;
}
