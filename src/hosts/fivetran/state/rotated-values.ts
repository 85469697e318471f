import { createHash } from 'node:crypto';
import type { RotatingSecret } from '../../../auth/index.js';
import type { RawConfiguration } from '../../../config/index.js';
import type { RotationKeeper } from '../../../connector/index.js';
import { derivedForms } from '../../../secrets/index.js';
import { holdForms, releaseForms } from './call-secrets.js';
import type { RotatedValue } from './sealed-value.js';

/**
 * Rotated values (a single-use refresh token the authorization server replaced) kept by the server.
 *
 * The partner protocol has no message that changes a connection's configuration: Fivetran sends the
 * configuration it was given at setup with every call, so after the first rotation its
 * `refresh_token` is spent. The server therefore keeps, per configured value (its "lineage"), the
 * newest value in memory, and every call whose configuration holds that configured value uses the
 * newest instead; an Update also seals it into the state it checkpoints (connector-state.ts), which
 * Fivetran stores and sends back with the next Update, so it outlives a restart of the server.
 *
 * Uses of one lineage run one at a time (`exclusive`): with rotation, two calls refreshing at once
 * with the same token would have the second refused (and many servers then revoke the whole family,
 * RFC 9700 §4.14.2). Each waits for the one before and is handed the value it left.
 */

interface Lineage {
  newest: RotatedValue | undefined;
  /** Its forms, held in the process-wide registry while it is kept here. */
  held: string[];
  queue: Promise<unknown>;
}

export class RotatedValues {
  readonly #lineages = new Map<string, Lineage>();
  /** Keys that have rotated in this process or arrived sealed: the ones to seal into states. */
  readonly keys = new Set<string>();

  /** The newest value known for the lineage of `configured`, if it ever rotated. */
  newest(key: string, configured: string): RotatedValue | undefined {
    return this.#lineages.get(lineageId(key, configured))?.newest;
  }

  /** Keeps `rotated` when it is newer than what the lineage holds; true when kept. */
  accept(key: string, configured: string, rotated: RotatedValue): boolean {
    const lineage = this.#lineage(key, configured);
    if (lineage.newest && lineage.newest.rotatedAt >= rotated.rotatedAt) return false;
    const previous = lineage.held;
    lineage.newest = rotated;
    lineage.held = holdForms(key, derivedForms(rotated.value));
    releaseForms(previous);
    this.keys.add(key);
    return true;
  }

  /** Runs `use` with the newest value of the lineage, after every use of it that started before. */
  exclusive<T>(key: string, configured: string, held: string, use: (current: string) => Promise<T>): Promise<T> {
    const lineage = this.#lineage(key, configured);
    const run = lineage.queue.then(() => use(lineage.newest?.value ?? held));
    lineage.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The Fivetran host's way to keep a rotated secret, for one call: `rotatingSecret` for the method's
   * exchanges, and `keep`, which the method calls with a rotated value (kept here first, then
   * `onRotated` tells the call, which seals it into a checkpoint when it has a stream).
   */
  forCall(
    raw: RawConfiguration,
    onRotated: (key: string, rotated: RotatedValue) => Promise<void>,
    now: () => number = Date.now,
  ): RotationKeeper {
    const rotatingSecret: RotatingSecret = (key, held, use) => this.exclusive(key, raw[key] ?? held, held, use);
    const keep = async (key: string, value: string): Promise<void> => {
      const configured = raw[key] ?? value;
      // Later than whatever the lineage holds, even within one millisecond: the newest must win.
      const rotated = { value, rotatedAt: Math.max(now(), (this.newest(key, configured)?.rotatedAt ?? 0) + 1) };
      this.accept(key, configured, rotated);
      await onRotated(key, rotated);
    };
    return { rotatingSecret, keep };
  }

  #lineage(key: string, configured: string): Lineage {
    const id = lineageId(key, configured);
    let lineage = this.#lineages.get(id);
    if (!lineage) {
      lineage = { newest: undefined, held: [], queue: Promise.resolve() };
      this.#lineages.set(id, lineage);
    }
    return lineage;
  }
}

/** A digest, so the map's keys are not the configured secrets themselves. */
function lineageId(key: string, configured: string): string {
  return createHash('sha256').update(key).update('\0').update(configured).digest('base64url');
}
