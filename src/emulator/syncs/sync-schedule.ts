import type { Connector } from '../../clients/index.js';

/**
 * When a connector's next scheduled sync starts (specification 2.2, rules 3–5):
 * - `schedule_type: manual` disables scheduled syncs (none is due); a paused connector has none either;
 * - with `sync_frequency` 1440, the sync starts at `daily_sync_time` (whole hours, UTC), or at the
 *   baseline start time when none is given, plus a fixed per-connector offset of 0–59 minutes that the
 *   start time does not change;
 * - with any other frequency `daily_sync_time` has no effect: syncs follow the last sync (or the
 *   creation) every `sync_frequency` minutes.
 */

export interface NextSync {
  at: Date | null;
  reason: 'manual_schedule' | 'paused' | 'daily_start_time' | 'daily_baseline' | 'frequency';
  /** Rule 2.2.1: whether that sync will be a historical one. */
  historical: boolean;
}

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/** The 0–59 minute offset, fixed per connector (rule 3: the start time does not move it). */
export function startOffsetMinutes(connectorId: string): number {
  let h = 2166136261;
  for (let i = 0; i < connectorId.length; i++) h = Math.imul(h ^ connectorId.charCodeAt(i), 16777619) >>> 0;
  return h % 60;
}

export function nextScheduledSync(connector: Connector, after: Date, baselineStartTime = '00:00'): NextSync {
  const historical = connector.status.is_historical_sync === true;
  if (connector.schedule_type === 'manual') return { at: null, reason: 'manual_schedule', historical };
  if (connector.paused) return { at: null, reason: 'paused', historical };
  if (connector.sync_frequency === 1440) {
    const time = connector.daily_sync_time ?? baselineStartTime;
    const hour = Number(time.slice(0, 2));
    const day = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate());
    let at = day + hour * 60 * MINUTE + startOffsetMinutes(connector.id) * MINUTE;
    while (at <= after.getTime()) at += DAY;
    return { at: new Date(at), reason: connector.daily_sync_time ? 'daily_start_time' : 'daily_baseline', historical };
  }
  const anchor = Date.parse(lastSyncStart(connector));
  const period = connector.sync_frequency * MINUTE;
  const periods = Math.max(1, Math.floor((after.getTime() - anchor) / period) + 1);
  return { at: new Date(anchor + periods * period), reason: 'frequency', historical };
}

function lastSyncStart(connector: Connector): string {
  const times = [connector.succeeded_at, connector.failed_at].filter((t): t is string => typeof t === 'string');
  return times.sort().at(-1) ?? connector.created_at;
}
