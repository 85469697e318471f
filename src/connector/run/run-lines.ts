import type { ProbeResult } from '../../sources/index.js';
import type { OperationCounts } from '../definition/index.js';

/** The line every host logs when the probe succeeded. */
export function probeLine(probe: ProbeResult): string {
  return `probe succeeded: ${probe.target} → ${probe.outcome} in ${Math.round(probe.elapsedMs)} ms`;
}

/** The line every host logs when a sync succeeded, with the host's note after the counts. */
export function summaryLine(counts: OperationCounts, elapsedMs: number, note?: string): string {
  const c = counts;
  return (
    `sync done in ${(elapsedMs / 1000).toFixed(2)} s: ${c.upserts} upserts, ${c.updates} updates, ` +
    `${c.deletes} deletes, ${c.truncates} truncates, ${c.schemaChanges} schema changes, ${c.checkpoints} checkpoints` +
    (note ? `; ${note}` : '')
  );
}
