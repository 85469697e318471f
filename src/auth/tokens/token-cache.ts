import type { Logger } from '../../log/index.js';

/**
 * The access token of one credential, shared by every request that credential authorizes. (Any
 * short-lived value fits: an assumed AWS role's temporary credentials are cached the same way.)
 *
 * - Proactive refresh: a token is renewed `refreshMargin(lifetime)` before it expires — 1/20 of its
 *   lifetime, at most 5 minutes — in the background while it is still served.
 * - A token is served until `hardMargin` (a third of the refresh margin) before expiry; past that
 *   point callers wait for the new token rather than send one that may expire in flight.
 * - Exactly one refresh in flight per credential, whatever the concurrency: every caller who needs
 *   a token while one is being fetched waits for that same fetch.
 * - A 401 from the source (`invalidate()`) drops the token it refused, once, however new; a token
 *   that has replaced it since is kept (the 401 was for its predecessor), so a burst of 401s costs
 *   one refresh, not one per request.
 *   With a renewal already in flight, the dropped token's callers wait for that one.
 * - A failed background refresh is logged and retried later, while the current token stays valid;
 *   a failed blocking refresh is thrown to the caller. An error the credential calls final
 *   (`isFatal`: a rotated refresh token that could not be saved, whose value now lives only in a
 *   recovery file; a further refresh would rotate it again, to a value saved nowhere) is thrown to
 *   every later call, and no further token is fetched.
 *
 * Retries, backoff and Retry-After belong to the fetch (see token-endpoint.ts); this class decides
 * when to fetch and makes sure it happens once. The clock is injected (`now`), so tests run an hour
 * of tokens in milliseconds.
 */

export interface IssuedToken<T = string> {
  readonly value: T;
  /** Lifetime announced by the server, counted from when the request was sent. */
  readonly lifetimeMs: number;
}

export interface TokenCacheOptions<T = string> {
  /** Fetches a new token (with its own retries); called at most once at a time. */
  fetch: () => Promise<IssuedToken<T>>;
  now: () => number;
  log: Logger;
  /** The credential, for log lines. */
  description: string;
  /** An error after which no further fetch may happen. Default: none (a token file unreadable for a moment heals). */
  isFatal?: (error: unknown) => boolean;
  /** A token that arrived less than this ago is not dropped by invalidate(). Default 2 s. */
  recentMs?: number;
  /** What the value is called in log lines. Default 'access token'. */
  noun?: string;
}

interface CachedToken<T> {
  readonly value: T;
  /** When the answer arrived (not when it was asked for): how recent the token is for invalidate(). */
  readonly arrivedAt: number;
  readonly expiresAt: number;
  /** From here on, a background refresh starts. */
  readonly refreshAt: number;
  /** From here on, callers wait for a new token. */
  readonly usableUntil: number;
}

const FIVE_MINUTES = 5 * 60_000;

/**
 * 1/20 of the lifetime, at most 5 minutes. A fixed margin fits one lifetime only: Azure Identity's
 * 2 minutes renews a 5-minute token every 3 minutes (20 requests an hour), and the 5 minutes of the
 * AWS SDK and google-auth-library leave a 5-minute token permanently "expiring" (a request per
 * call). 5% renews a 5-minute token after 4¾ minutes (13 requests an hour) and an hour-long token 3
 * minutes early; from 100 minutes up the margin is the usual 5 minutes.
 */
export function refreshMargin(lifetimeMs: number): number {
  return Math.min(FIVE_MINUTES, lifetimeMs / 20);
}

/** Time kept back for a request in flight: a third of the refresh margin (5 s for a 5-minute token). */
export function hardMargin(lifetimeMs: number): number {
  return refreshMargin(lifetimeMs) / 3;
}

export class TokenCache<T = string> {
  readonly #o: TokenCacheOptions<T>;
  readonly #isFatal: (error: unknown) => boolean;
  readonly #recentMs: number;
  readonly #noun: string;
  #current: CachedToken<T> | undefined;
  #inflight: Promise<CachedToken<T>> | undefined;
  #fatal: unknown;
  /** No background refresh before this time (after one failed). */
  #quietUntil = 0;
  /** Counts fetches started, for tests and the bench. */
  #fetches = 0;

  constructor(options: TokenCacheOptions<T>) {
    this.#o = options;
    this.#noun = options.noun ?? 'access token';
    this.#isFatal = options.isFatal ?? (() => false);
    this.#recentMs = options.recentMs ?? 2000;
  }

  /** The current access token, fetching or renewing it when needed. */
  async token(): Promise<T> {
    if (this.#fatal !== undefined) throw this.#fatal;
    const current = this.#current;
    if (current !== undefined) {
      const now = this.#o.now();
      if (now < current.usableUntil) {
        if (now >= current.refreshAt && this.#inflight === undefined && now >= this.#quietUntil)
          this.#refreshInBackground();
        return current.value;
      }
    }
    return (await this.#refresh()).value;
  }

  /**
   * The source answered 401. With `rejected`, the token the refused request carried: dropped when
   * it is still the current one, however new (a token revoked a moment after it was issued is not
   * sent again), kept when another has replaced it since (the 401 was for its predecessor, so a
   * burst of 401s costs one refresh). Without it, the current token is dropped unless it arrived
   * moments ago. The next token() then fetches, or waits for the renewal already in flight, rather
   * than serving the refused token again. True: one retry may succeed. False only when the
   * credential can no longer produce tokens.
   */
  invalidate(rejected?: T): boolean {
    if (this.#fatal !== undefined) return false;
    const current = this.#current;
    const stale =
      rejected !== undefined
        ? current?.value === rejected
        : current !== undefined && this.#o.now() - current.arrivedAt >= this.#recentMs;
    if (current !== undefined && stale) {
      this.#o.log.debug(
        `${this.#o.description}: the source rejected the ${this.#noun}; ${this.#inflight ? 'waiting for the one being fetched' : 'fetching a new one'}`,
      );
      this.#current = undefined;
    }
    return true;
  }

  /** Waits for a refresh in flight, so that a rotated refresh token is saved before the process ends. */
  async close(): Promise<void> {
    await this.#inflight?.catch(() => undefined);
    this.#current = undefined;
  }

  get fetchCount(): number {
    return this.#fetches;
  }

  #refresh(): Promise<CachedToken<T>> {
    if (this.#inflight !== undefined) return this.#inflight;
    const inflight = this.#fetch();
    this.#inflight = inflight;
    const settle = () => {
      if (this.#inflight === inflight) this.#inflight = undefined;
    };
    inflight.then(settle, settle);
    return inflight;
  }

  async #fetch(): Promise<CachedToken<T>> {
    this.#fetches++;
    // Counted from the request, not the answer: the server's clock started when it issued.
    const requestedAt = this.#o.now();
    let issued: IssuedToken<T>;
    try {
      issued = await this.#o.fetch();
    } catch (error) {
      if (this.#isFatal(error)) {
        this.#fatal = error;
        this.#current = undefined;
      }
      throw error;
    }
    const lifetime = Math.max(0, issued.lifetimeMs);
    const expiresAt = requestedAt + lifetime;
    const token: CachedToken<T> = {
      value: issued.value,
      arrivedAt: this.#o.now(),
      expiresAt,
      refreshAt: expiresAt - refreshMargin(lifetime),
      usableUntil: expiresAt - hardMargin(lifetime),
    };
    this.#current = token;
    this.#quietUntil = 0;
    return token;
  }

  #refreshInBackground(): void {
    this.#o.log.debug(`${this.#o.description}: renewing the ${this.#noun} ahead of its expiry`);
    this.#refresh().catch((error: unknown) => {
      if (this.#fatal !== undefined) {
        this.#o.log.error(`${this.#o.description}: ${messageOf(error)}`);
        return;
      }
      const current = this.#current;
      const later = this.#o.now();
      const left = current ? current.usableUntil - later : 0;
      // Half the time left each failure: a few more tries, the last one a blocking refresh that throws.
      this.#quietUntil = later + Math.max(1000, left / 2);
      this.#o.log.warning(
        `${this.#o.description}: renewing the ${this.#noun} failed (${messageOf(error)}); ` +
          (current
            ? `the current one stays in use for another ${Math.max(0, Math.round(left / 1000))}s`
            : // invalidate() dropped it (the source refused it): the callers waiting get this error.
              'the source had refused the current one, so there is none to use'),
      );
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
