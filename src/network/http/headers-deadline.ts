/**
 * A deadline for getting an answer's headers, disarmed once they are in. `AbortSignal.timeout`
 * cannot serve: a client keeps its abort listener until the whole body is read (our HTTP client's
 * exchange, the AWS SDK's request handler alike), so it would cut a slow download off mid-body. The abort
 * reason is a `TimeoutError`, which classifyNetworkError reads as a timeout.
 */
export interface HeadersDeadline {
  readonly signal: AbortSignal;
  /** The headers arrived (or the request failed): the deadline no longer applies. Idempotent. */
  disarm(): void;
}

export function headersDeadline(timeoutMs: number): HeadersDeadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  return { signal: controller.signal, disarm: () => clearTimeout(timer) };
}
