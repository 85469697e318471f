import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import { realTimers } from '../auth-method.js';
import type { DpopProver } from './dpop.js';
import { parseObject } from './token-answer.js';
import { messagePrefix, type EndpointTarget, type RetryOptions, type RetryPolicy } from './token-endpoint-options.js';
import type { Sent } from './token-request.js';

/**
 * When a token request is sent again. What is retried: 408, 429, 500, 502, 503, 504, the OAuth
 * errors `server_error` and `temporarily_unavailable`, and network failures. What is not: everything
 * that says the credential or the configuration is wrong (`invalid_client`, `invalid_grant`, …) —
 * asking again would only lock the account sooner. Retries wait with exponential backoff and jitter,
 * or as long as `Retry-After` says; all attempts and waits together stay within a budget derived from
 * `timeout_seconds`, so a token endpoint that never recovers ends the run in bounded time (exit 4).
 * Apart from these, a DPoP nonce the server asks for is followed at once (withDpopNonce).
 */

/**
 * Five attempts, 250 ms doubling to at most 4 s, within 80% of timeout_seconds: the probe as a whole
 * has timeout_seconds, and the token endpoint's own, precise error must win the race against the
 * probe's generic deadline.
 */
export function defaultRetryPolicy(timeoutSeconds: number): RetryPolicy {
  return { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 4000, budgetMs: Math.round(timeoutSeconds * 800) };
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
export const RETRY_OAUTH_ERRORS: ReadonlySet<string> = new Set(['server_error', 'temporarily_unavailable']);

/** What one attempt came to: the answer wanted, or a failure worth another attempt (a final one is thrown). */
export type Attempt<T> =
  | { kind: 'token'; token: T }
  | { kind: 'retry'; error: SourceUnreachableError; what: string; retryAfterMs: number | undefined };

/** Runs `attemptOnce` until it gives an answer, throws, or the policy's attempts or budget are spent. */
export async function withRetries<T>(
  o: EndpointTarget & RetryOptions,
  what: string,
  attemptOnce: (remainingMs: number) => Promise<Attempt<T>>,
): Promise<T> {
  const { now, retry, log } = o;
  const timers = o.timers ?? realTimers;
  const target = describeUrl(o.url);
  const started = now();
  const deadline = started + retry.budgetMs;
  for (let attempt = 1; ; attempt++) {
    log.debug(`${o.credential}: requesting a token from ${target} (${what}attempt ${attempt})`);
    const outcome = await attemptOnce(Math.max(1, deadline - now()));
    if (outcome.kind === 'token') return outcome.token;

    const elapsed = now() - started;
    const delay = outcome.retryAfterMs ?? backoff(retry, attempt, o.random ?? Math.random);
    const remaining = deadline - now();
    if (attempt >= retry.maxAttempts || delay >= remaining) {
      const why =
        outcome.retryAfterMs !== undefined && outcome.retryAfterMs >= remaining
          ? `; it asked to retry after ${seconds(outcome.retryAfterMs)}s, beyond the ${seconds(retry.budgetMs)}s budget`
          : '';
      throw exhausted(o, outcome, attempt, elapsed, why);
    }
    log.warning(
      `${o.credential}: the token endpoint ${target} ${outcome.what}; ` +
        `retrying in ${seconds(delay)}s (attempt ${attempt + 1} of at most ${retry.maxAttempts})`,
    );
    await timers.sleep(delay);
  }
}

/**
 * RFC 9449 §8: a server that wants a DPoP nonce says so once; the request goes again with it (built
 * again: a client assertion is good once), at once and without counting as a retry (Okta asks on
 * every first request). `send` builds, proves and sends one request.
 */
export async function withDpopNonce(dpop: DpopProver | undefined, url: URL, send: () => Promise<Sent>): Promise<Sent> {
  const first = await send();
  if (!dpop || first.kind !== 'answered') return first;
  const { response, text } = first;
  const nonceChanged = dpop.learnNonce(url, response.headers);
  const asked = (response.status === 400 || response.status === 401) && parseObject(text)?.error === 'use_dpop_nonce';
  if (!nonceChanged || !asked) return first;
  const second = await send();
  if (second.kind === 'answered') dpop.learnNonce(url, second.response.headers);
  return second;
}

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so callers spread out. */
function backoff(policy: RetryPolicy, attempt: number, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

function exhausted(
  o: EndpointTarget & RetryOptions,
  outcome: Extract<Attempt<unknown>, { kind: 'retry' }>,
  attempts: number,
  elapsedMs: number,
  why: string,
): SourceUnreachableError {
  const last = outcome.error;
  const timedOut = last.code === 'timeout';
  return new SourceUnreachableError(
    `${messagePrefix(o)} ${outcome.what} on ${attempts} attempt${attempts === 1 ? '' : 's'} over ${seconds(elapsedMs)}s; no token${why}`,
    {
      code: last.code,
      key: timedOut ? 'timeout_seconds' : o.urlKey,
      hint: timedOut
        ? `check that the token endpoint answers at '${o.urlKey}', or raise 'timeout_seconds'`
        : (o.unreachableHint ??
          `the token endpoint at '${o.urlKey}' is unavailable; retry later (a larger 'timeout_seconds' allows longer retries)`),
      cause: last,
    },
  );
}

const seconds = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
