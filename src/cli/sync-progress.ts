import type { OperationCounts } from '../connector/index.js';
import type { CliIO } from './cli-io.js';

/**
 * What `debug` shows while update() runs. On a terminal: a status line rewritten in place a few
 * times a second. Anywhere else (a CI log, a file, `--json`): one log line every `intervalSeconds`,
 * so a long sync is never silent between the probe and the summary, and a log file stays readable
 * (no carriage returns). Both say the same: rows per table, checkpoints, time since the start.
 */
export interface SyncProgress {
  /** How often runDebug should call `show` (its onProgress). */
  everyMs: number;
  show(counts: OperationCounts): void;
  /** Clears the status line (nothing to clear in a log). */
  done(): void;
}

/** How many tables a line names before "and N more". */
const TABLES_SHOWN = 5;

export function syncProgress(io: CliIO, intervalSeconds: number, startedAt = performance.now()): SyncProgress {
  const live = io.stderrIsTTY && !io.json;
  if (live) {
    return {
      everyMs: 200,
      show: (counts) => io.progress(`  syncing… ${describe(counts, startedAt)}`),
      done: () => io.progress(undefined),
    };
  }
  if (intervalSeconds <= 0) return { everyMs: 60_000, show: () => undefined, done: () => undefined };
  return {
    everyMs: intervalSeconds * 1000,
    show(counts) {
      io.log.info(`syncing: ${describe(counts, startedAt)}`, {
        rows: rowsOf(counts),
        tables: counts.tables ?? {},
        checkpoints: counts.checkpoints,
        elapsed_seconds: Math.round((performance.now() - startedAt) / 1000),
      });
    },
    done: () => undefined,
  };
}

function rowsOf(counts: OperationCounts): number {
  return counts.upserts + counts.updates + counts.deletes;
}

function describe(counts: OperationCounts, startedAt: number): string {
  const tables = Object.entries(counts.tables ?? {}).sort((a, b) => b[1] - a[1]);
  const named = tables.slice(0, TABLES_SHOWN).map(([table, rows]) => `${table} ${rows.toLocaleString('en-US')}`);
  if (tables.length > TABLES_SHOWN) named.push(`and ${tables.length - TABLES_SHOWN} more tables`);
  const rows = rowsOf(counts).toLocaleString('en-US');
  const elapsed = ((performance.now() - startedAt) / 1000).toFixed(0);
  return `${rows} rows${named.length ? ` (${named.join(', ')})` : ''}, ${counts.checkpoints} checkpoint${counts.checkpoints === 1 ? '' : 's'}, ${elapsed} s elapsed`;
}
