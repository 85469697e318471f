import type { Logger } from '../log/index.js';

const DAY_MS = 86_400_000;

/**
 * The rotation rule of a method for its parsed keys: its own (30 days for service account keys; null:
 * nothing to rotate, or a rule that depends on the keys), else 90 days.
 */
export function rotationDaysOf(
  method: { rotationDays?: number | null | ((keys: never) => number | null) },
  keys: unknown,
): number | null {
  const rule = method.rotationDays;
  if (typeof rule === 'function') return (rule as (keys: unknown) => number | null)(keys);
  return rule === undefined ? 90 : rule;
}

/** Whole days since the credential was issued. */
export function credentialAgeDays(issuedAt: Date, now: number): number {
  return Math.floor((now - issuedAt.getTime()) / DAY_MS);
}

/** The credential's age in whole days when it is past its rotation rule, else undefined. */
export function overdueAgeDays(issuedAt: Date, rotationDays: number, now: number): number | undefined {
  const ageDays = credentialAgeDays(issuedAt, now);
  return ageDays > rotationDays ? ageDays : undefined;
}

/**
 * The specification recommends rotating API keys every 90 days and service account keys every 30;
 * none of the well-known libraries says so when a credential is older. `credential_issued_at`
 * makes that visible on every run.
 */
export function warnIfCredentialOld(
  method: string,
  rotationDays: number | null,
  issuedAt: Date | undefined,
  now: number,
  log: Logger,
): void {
  if (!issuedAt || rotationDays === null) return;
  const ageDays = overdueAgeDays(issuedAt, rotationDays, now);
  if (ageDays !== undefined) {
    log.warning(
      `the ${method} credential is ${ageDays} days old (credential_issued_at ${issuedAt.toISOString().slice(0, 10)}); ` +
        `rotate it: the rule for this kind of credential is every ${rotationDays} days`,
    );
  }
}
