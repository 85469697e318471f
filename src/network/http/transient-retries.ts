import type { HeaderReader } from './http-reply.js';
import { retryAfterMs } from './retry-after.js';

/**
 * A request asked again when the failure is one that passes: the answers that say "not now" (408,
 * 429, and a server or gateway failing: 500, 502, 503, 504) and a connection reset or closed under
 * it. Only requests that may be sent twice are: idempotent methods (RFC 9110 §9.2.2), or another one
 * whose caller says so. Waits follow `Retry-After` when the answer gives one, else back off
 * exponentially (0.5 s, 1 s, 2 s … with jitter); a `Retry-After` past `MAX_RETRY_WAIT_MS` is not
 * waited for: the answer goes back as it is. Statuses are returned, not thrown: the caller decides
 * what an answer means, and learns how many tries it took.
 */

const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** Classified network failures (classifyNetworkError's codes) that a new connection may not meet. */
const TRANSIENT_FAILURES = new Set(['econnreset', 'epipe']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);
const MAX_RETRY_WAIT_MS = 60_000;
const FIRST_BACKOFF_MS = 500;

interface TransientRetryOptions<R> {
  method: string;
  /** Retry a method that is not idempotent too (the connector knows the request is safe to repeat). */
  retryUnsafe?: boolean;
  maxRetries: number;
  /** Reads a refused answer's body to its end, so the next try reuses the connection. */
  drain(reply: R): Promise<unknown>;
  /** Says what is about to be tried again, and why. */
  onRetry?(reason: string, waitMs: number, tryNumber: number): void;
  signal?: AbortSignal;
}

export async function withTransientRetries<R extends { status: number; headers: HeaderReader }>(
  send: () => Promise<R>,
  options: TransientRetryOptions<R>,
): Promise<{ reply: R; tries: number }> {
  const repeatable = options.retryUnsafe === true || IDEMPOTENT.has(options.method.toUpperCase());
  for (let tries = 1; ; tries++) {
    const last = !repeatable || tries > options.maxRetries;
    let reply: R;
    try {
      reply = await send();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (last || typeof code !== 'string' || !TRANSIENT_FAILURES.has(code)) throw withTries(error, tries);
      await pause(backoffMs(tries), `${code}`, tries, options);
      continue;
    }
    if (last || !TRANSIENT_STATUSES.has(reply.status)) return { reply, tries };
    const advised = retryAfterMs(reply.headers.get('retry-after'), Date.now());
    if (advised !== undefined && advised > MAX_RETRY_WAIT_MS) return { reply, tries };
    await options.drain(reply);
    await pause(advised ?? backoffMs(tries), `HTTP ${reply.status}`, tries, options);
  }
}

/** 0.5 s, 1 s, 2 s … (at most the longest wait), each between 75% and 100% of that. */
function backoffMs(tries: number): number {
  const ceiling = Math.min(FIRST_BACKOFF_MS * 2 ** (tries - 1), MAX_RETRY_WAIT_MS);
  return Math.round(ceiling * (0.75 + Math.random() * 0.25));
}

function pause(ms: number, reason: string, tries: number, options: TransientRetryOptions<unknown>): Promise<void> {
  options.onRetry?.(reason, ms, tries + 1);
  return new Promise((resolve, reject) => {
    const done = () => (options.signal?.removeEventListener('abort', stop), resolve());
    const timer = setTimeout(done, ms);
    const stop = () => (clearTimeout(timer), reject(options.signal?.reason as Error));
    options.signal?.addEventListener('abort', stop, { once: true });
  });
}

/** A failure that was tried more than once says how many times, in its one line. */
function withTries(error: unknown, tries: number): unknown {
  if (tries > 1 && error instanceof Error) error.message = `${error.message} (gave up after ${tries} tries)`;
  return error;
}
