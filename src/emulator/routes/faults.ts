/**
 * Injected failures, so a client's retry and error paths meet real HTTP: "the next 2 GETs of
 * /v1/groups answer 503 with Retry-After: 1", "the next webhook fetch answers 200 {status: error}".
 * A fault matches by method and path prefix and is used up after `times` requests.
 */

export interface Fault {
  /** Path prefix, e.g. `/v1/groups` or `/api/v1/webhooks`. */
  path: string;
  /** Any method when absent. */
  method?: string;
  status: number;
  /** JSON body; `{code, message}` or `{status}` as fits the interface. */
  body?: unknown;
  /** Sent as the Retry-After header. */
  retryAfter?: string;
  /** How many requests it answers (default 1). */
  times: number;
}

export class FaultInjector {
  readonly #faults: Fault[] = [];

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  clear(): void {
    this.#faults.length = 0;
  }

  get pending(): number {
    return this.#faults.length;
  }

  /** The first fault matching this request, used up by one. */
  take(method: string, pathname: string): Fault | undefined {
    const i = this.#faults.findIndex(
      (f) => pathname.startsWith(f.path) && (!f.method || f.method.toUpperCase() === method),
    );
    if (i < 0) return undefined;
    const fault = this.#faults[i]!;
    if (--fault.times <= 0) this.#faults.splice(i, 1);
    return fault;
  }
}
