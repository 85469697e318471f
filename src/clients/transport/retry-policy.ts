import { retryAfterMs } from '../../network/index.js';
import type { TransportResponse } from './http-transport.js';

/**
 * Bounded retries for requests that are safe to repeat. 429 and 5xx are retried with capped,
 * jittered exponential backoff; a `Retry-After` header (seconds or an HTTP date) replaces the backoff
 * for that attempt. A Retry-After longer than `maxRetryAfterMs` is not waited for: the caller gets the
 * error at once with the wait in its message, instead of a command that hangs for an hour.
 */

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  retries?: number;
  /** First backoff step (default 250 ms); each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After honoured (default 60 s). */
  maxRetryAfterMs?: number;
  /** How waiting is done; a test can record the waits. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export type RetryDecision = 'always' | 'rate-limit-only' | 'never';

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function isRetryableStatus(status: number, decision: RetryDecision): boolean {
  if (decision === 'never') return false;
  if (status === 429) return true;
  return decision === 'always' && status >= 500 && status <= 599;
}

/**
 * Sends until a response is not retryable or the retries are spent; returns the last response.
 * `decision` is per request: GETs are 'always', a POST that changes state only 'rate-limit-only'
 * (a 429 means the service did not act on it; a 502 may come after it did).
 */
export async function sendWithRetry(
  send: () => Promise<TransportResponse>,
  decision: RetryDecision,
  options: RetryOptions = {},
): Promise<TransportResponse> {
  const retries = options.retries ?? 3;
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 8000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  for (let attempt = 0; ; attempt++) {
    const response = await send();
    if (attempt >= retries || !isRetryableStatus(response.status, decision)) return response;
    const advised = retryAfterMs(response.headers.get('retry-after'), now());
    if (advised !== undefined && advised > maxRetryAfter) return response;
    // Full jitter: callers that failed together do not come back together.
    const delay = advised ?? Math.round(random() * Math.min(max, base * 2 ** attempt));
    // Read the (small) error body to its end: the connection then goes back to the pool.
    await response.text().catch(() => undefined);
    await sleep(delay);
  }
}
