import { MIN_SECRET_LENGTH, SecretRegistry, derivedForms, secrets as processSecrets } from '../../../secrets/index.js';

/**
 * Secrets of one gRPC call, and the process's view of all of them.
 *
 * Each call (Test, Schema, Update) has its own registry: its configuration's secrets, its tokens.
 * That registry decides what the call refuses to put in a row or a state, so one connection's
 * values never change what another connection may sync. Everything the process prints goes through
 * the output gate, which reads the process-wide registry: every form a call registers is also held
 * there, counted, and let go when no running call (and no rotated value kept in memory) holds it
 * any more, so a server that runs for months does not keep every access token it ever saw.
 */

const holds = new Map<string, number>();

/** Holds forms in the process-wide registry under a label; each hold is released once. */
export function holdForms(label: string, forms: Iterable<string>): string[] {
  const held: string[] = [];
  for (const form of forms) {
    if (form.length < MIN_SECRET_LENGTH) continue;
    // A form the process registered for good (a connector's secret default, at load) is not a
    // call's to hold: releasing it would forget it while the process still needs it.
    if (!holds.has(form) && processSecrets.has(form)) continue;
    held.push(form);
    holds.set(form, (holds.get(form) ?? 0) + 1);
  }
  processSecrets.registerForms(label, held);
  return held;
}

export function releaseForms(forms: Iterable<string>): void {
  const gone: string[] = [];
  for (const form of forms) {
    const count = (holds.get(form) ?? 0) - 1;
    if (count > 0) holds.set(form, count);
    else {
      holds.delete(form);
      gone.push(form);
    }
  }
  processSecrets.forget(gone);
}

/** How many distinct forms calls hold in the process-wide registry now (for tests). */
export function heldFormCount(): number {
  return holds.size;
}

/** A call's own registry; what it learns is held process-wide until `release()`. */
export class CallSecrets extends SecretRegistry {
  readonly #held: string[] = [];
  #released = false;

  override register(label: string, value: string): void {
    super.register(label, value);
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    this.#hold(label, derivedForms(value));
  }

  override registerForms(label: string, forms: Iterable<string>): void {
    const list = [...forms];
    super.registerForms(label, list);
    this.#hold(label, list);
  }

  /** The call has ended: its forms leave the process-wide registry unless another holder keeps them. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    releaseForms(this.#held);
    this.#held.length = 0;
  }

  #hold(label: string, forms: Iterable<string>): void {
    // A late registration after the end (a timer of the connector's) is still redacted, but never released.
    if (this.#released) processSecrets.registerForms(label, forms);
    else this.#held.push(...holdForms(label, forms));
  }
}
