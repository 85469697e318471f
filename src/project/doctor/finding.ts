import { relative } from 'node:path';
/**
 * One thing `connector-auth doctor` found. Never a secret value: a finding names the key, the file
 * and the line, which is what the person fixing it needs.
 *
 * - `error`: a credential is exposed or the configuration does not work; doctor exits 2.
 * - `warning`: a weaker setting that works (TLS verification off, a credential due for rotation).
 * - `note`: advice, or a check that could not run here (no git repository).
 */
export type Severity = 'error' | 'warning' | 'note';

export interface Finding {
  severity: Severity;
  /** A stable name for scripts: `configuration-tracked-by-git`, `secret-in-source`, … */
  check: string;
  message: string;
  /** The configuration key concerned, when there is one. */
  key?: string;
  /** `path` or `path:line`, relative to the project. */
  where?: string;
  /** What to do about it. */
  hint?: string;
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

export function bySeverity(a: Finding, b: Finding): number {
  return ORDER[a.severity] - ORDER[b.severity];
}

/** A path as findings show it: relative to the project, or whole when it is outside it. */
export function shown(project: string, path: string): string {
  const rel = relative(project, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}
