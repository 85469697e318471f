import type { status as GrpcStatus, StatusObject } from '@grpc/grpc-js';
import { ExitCode, exitCodeOf, isConnectorAuthError } from '../../../errors/index.js';
import { secrets as processSecrets, type SecretRegistry } from '../../../secrets/index.js';

/**
 * A failure as the platform sees it: our one line (`[code] message — hint`, the hint naming the key
 * to fix) and a gRPC status code by the error's class. A status is not printed, so the output gate
 * never sees it: the line is redacted here, with the call's secrets and every running call's. The
 * trailing metadata repeats the code and key for a client that reads them.
 */

export function failureLine(error: unknown, registry: SecretRegistry): string {
  const line = isConnectorAuthError(error)
    ? `[${error.code}] ${error.message}${error.hint ? ` — ${error.hint}` : ''}`
    : `[unexpected] ${error instanceof Error ? error.message : String(error)}`;
  return processSecrets.redact(registry.redact(line));
}

/** The gRPC status codes, passed in: grpc-js is loaded only by `serve`. */
export function statusOf(
  error: unknown,
  registry: SecretRegistry,
  grpc: { status: typeof GrpcStatus; Metadata: new () => { set(key: string, value: string): void } },
): Partial<StatusObject> {
  const codes = grpc.status;
  const code = (() => {
    switch (exitCodeOf(error)) {
      case ExitCode.configuration:
        return codes.INVALID_ARGUMENT;
      case ExitCode.authentication:
        return codes.UNAUTHENTICATED;
      case ExitCode.unreachable:
        return codes.UNAVAILABLE;
      case ExitCode.identity:
        return codes.FAILED_PRECONDITION;
      default:
        return isConnectorAuthError(error) && error.code === 'serve_stopping' ? codes.UNAVAILABLE : codes.INTERNAL;
    }
  })();
  const metadata = new grpc.Metadata();
  if (isConnectorAuthError(error)) {
    metadata.set('connector-auth-code', error.code);
    if (error.key) metadata.set('connector-auth-key', error.key);
  }
  return { code, details: failureLine(error, registry), metadata: metadata as StatusObject['metadata'] };
}
