import type { Connector } from '../../clients/index.js';
import { DAILY_SYNC_TIME, SCHEDULE_TYPES, connectorSchema } from '../../clients/index.js';
import type { EmulatorStore } from '../store/index.js';

/**
 * A simulated sync run, so that the connector lifecycle of specification 2.2 and 3 can be watched
 * through the real endpoints:
 * - a run starts (`sync_state` syncing) only for a connector that is set up, not paused, not already
 *   syncing; a scheduled run not at all when `schedule_type` is manual (a manual "sync now" still runs);
 * - a run is historical when `is_historical_sync` was true at its start; the flag goes back to false
 *   when that historical run completes successfully, so only one run is historical (rules 1–2);
 * - success: `update_state` on_schedule, `setup_state` connected, `succeeded_at` set, tasks cleared;
 *   failure: `update_state` delayed, `failed_at` set, a task; broken: as failure and `setup_state`
 *   broken; rescheduled: `sync_state` rescheduled until the next start;
 * - the first failure raises `sync.alert.raised`, the next success `sync.alert.resolved` (an alert
 *   already open is not raised again).
 * Transitions are not shown in the specification; these are the emulator's documented choices.
 */

export type SyncTrigger = 'scheduled' | 'manual';
export type SyncOutcome = 'success' | 'failure' | 'broken' | 'rescheduled';
export const SYNC_OUTCOMES: readonly SyncOutcome[] = ['success', 'failure', 'broken', 'rescheduled'];

export interface EmulatorEvent {
  event: string;
  created: string;
  connector_type: string;
  connector_id: string;
  connector_name: string;
  group_id: string;
  sync_id?: string;
  data: Record<string, unknown>;
}

export interface SyncRun {
  sync_id: string;
  connector_id: string;
  trigger: SyncTrigger;
  historical: boolean;
  started_at: string;
  finished_at?: string;
  outcome?: SyncOutcome;
}

/** A request the simulation refuses; the control route answers with its status and code. */
export class SimulationRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SchedulePatch {
  is_historical_sync?: unknown;
  sync_frequency?: unknown;
  daily_sync_time?: unknown;
  schedule_type?: unknown;
  paused?: unknown;
}

export class SyncSimulator {
  readonly #store: EmulatorStore;
  readonly #now: () => Date;
  readonly #running = new Map<string, SyncRun>();
  readonly #openAlerts = new Set<string>();
  #runs = 0;

  constructor(store: EmulatorStore, now: () => Date) {
    this.#store = store;
    this.#now = now;
  }

  start(connectorId: string, trigger: SyncTrigger): { run: SyncRun; events: EmulatorEvent[] } {
    const connector = this.#connector(connectorId);
    if (this.#running.has(connectorId))
      throw new SimulationRefusal(409, 'SyncInProgress', `Connector '${connectorId}' is already syncing.`);
    if (connector.paused) throw new SimulationRefusal(409, 'ConnectorPaused', `Connector '${connectorId}' is paused.`);
    if (connector.status.setup_state === 'incomplete')
      throw new SimulationRefusal(409, 'SetupIncomplete', `Connector '${connectorId}' has not passed its setup tests.`);
    if (trigger === 'scheduled' && connector.schedule_type === 'manual')
      throw new SimulationRefusal(
        409,
        'ScheduledSyncDisabled',
        `Connector '${connectorId}' has schedule_type manual: scheduled syncs are disabled.`,
      );
    const run: SyncRun = {
      sync_id: `sync_${++this.#runs}`,
      connector_id: connectorId,
      trigger,
      historical: connector.status.is_historical_sync === true,
      started_at: this.#now().toISOString(),
    };
    this.#running.set(connectorId, run);
    this.#store.updateConnector(connectorId, (c) => {
      c.status.sync_state = 'syncing';
      c.status.rescheduled_for = null;
    });
    const events = [
      ...(trigger === 'manual' ? [this.#event('sync.triggered', connector, run, {})] : []),
      this.#event('sync.started', connector, run, { historical: run.historical }),
    ];
    return { run, events };
  }

  finish(
    connectorId: string,
    outcome: SyncOutcome,
    message?: string,
  ): { run: SyncRun; events: EmulatorEvent[]; connector: Connector } {
    const connector = this.#connector(connectorId);
    const run = this.#running.get(connectorId);
    if (!run) throw new SimulationRefusal(409, 'NotSyncing', `Connector '${connectorId}' is not syncing.`);
    this.#running.delete(connectorId);
    const now = this.#now().toISOString();
    run.finished_at = now;
    run.outcome = outcome;
    const events: EmulatorEvent[] = [];
    const reason =
      message ?? (outcome === 'broken' ? "The source rejected the connector's credentials" : 'The sync failed');
    this.#store.updateConnector(connectorId, (c) => {
      const status = c.status;
      if (outcome === 'success') {
        status.sync_state = 'scheduled';
        status.update_state = 'on_schedule';
        status.setup_state = 'connected';
        status.tasks = [];
        c.succeeded_at = now;
        // Rule 2.2.2: only a completed historical run resets the flag; a failed one leaves it for the next.
        if (run.historical) status.is_historical_sync = false;
      } else if (outcome === 'rescheduled') {
        status.sync_state = 'rescheduled';
        status.rescheduled_for = new Date(this.#now().getTime() + 3_600_000).toISOString();
      } else {
        status.sync_state = 'scheduled';
        status.update_state = 'delayed';
        if (outcome === 'broken') status.setup_state = 'broken';
        status.tasks = [{ code: outcome === 'broken' ? 'reconnect' : 'sync_failed', message: reason }];
        c.failed_at = now;
      }
    });
    if (outcome === 'success') {
      events.push(this.#event('sync.success', connector, run, { historical: run.historical }));
      events.push(this.#event('sync.completed', connector, run, { status: 'SUCCESSFUL', historical: run.historical }));
      if (this.#openAlerts.delete(connectorId)) events.push(this.#event('sync.alert.resolved', connector, run, {}));
    } else if (outcome === 'failure' || outcome === 'broken') {
      events.push(this.#event('sync.failed', connector, run, { reason }));
      events.push(this.#event('sync.completed', connector, run, { status: 'FAILURE', reason }));
      if (!this.#openAlerts.has(connectorId)) {
        this.#openAlerts.add(connectorId);
        events.push(
          this.#event('sync.alert.raised', connector, run, { reason, setup_state: connector.status.setup_state }),
        );
      }
    }
    return { run, events, connector };
  }

  /** Setup tests: passing moves `setup_state` from incomplete (or broken) to connected. */
  setup(connectorId: string, passed: boolean): Connector {
    this.#connector(connectorId);
    return this.#store.updateConnector(connectorId, (c) => {
      // Section 2.2: each result has a title, a status, a message and details (text here, as message).
      c.setup_tests = [
        passed
          ? { title: 'Connecting to the source', status: 'PASSED', message: '', details: '' }
          : {
              title: 'Connecting to the source',
              status: 'FAILED',
              message: 'The source refused the connection',
              details: 'connection refused (emulated setup test)',
            },
      ];
      if (passed) c.status.setup_state = 'connected';
      else if (c.status.setup_state === 'connected') c.status.setup_state = 'broken';
    })!;
  }

  /**
   * The schedule fields of 2.2, validated as the real service would (400 on a bad value, nothing
   * changed). The patch is first applied to a copy, which must pass the client's own record schema:
   * a value the store accepted but the schema refuses (say `sync_frequency` 2**53, not a safe
   * integer) would make every later listing of the group fail in the client.
   */
  changeSchedule(connectorId: string, patch: SchedulePatch): Connector {
    const current = this.#connector(connectorId);
    const bad = (message: string) => new SimulationRefusal(400, 'InvalidInput', message);
    if (patch.is_historical_sync !== undefined && typeof patch.is_historical_sync !== 'boolean')
      throw bad("Invalid 'is_historical_sync': must be true or false");
    if (patch.paused !== undefined && typeof patch.paused !== 'boolean')
      throw bad("Invalid 'paused': must be true or false");
    // Safe integers only: Number.isInteger accepts 2**53 and 1e300, which JSON carries but no
    // client can take as a whole number of minutes.
    if (
      patch.sync_frequency !== undefined &&
      (!Number.isSafeInteger(patch.sync_frequency) || (patch.sync_frequency as number) < 1)
    )
      throw bad("Invalid 'sync_frequency': must be a whole number of minutes");
    if (
      patch.daily_sync_time !== undefined &&
      patch.daily_sync_time !== null &&
      (typeof patch.daily_sync_time !== 'string' || !DAILY_SYNC_TIME.test(patch.daily_sync_time))
    )
      throw bad("Invalid 'daily_sync_time': must be a whole hour from 00:00 to 23:00");
    if (patch.schedule_type !== undefined && !(SCHEDULE_TYPES as readonly unknown[]).includes(patch.schedule_type))
      throw bad(`Invalid 'schedule_type': must be one of ${SCHEDULE_TYPES.join(', ')}`);
    const candidate = structuredClone(current);
    this.#applySchedule(connectorId, candidate, patch);
    const checked = connectorSchema.safeParse(candidate);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw bad(`Invalid '${issue.path.join('.') || 'connector'}': ${issue.message}`);
    }
    return this.#store.updateConnector(connectorId, (c) => this.#applySchedule(connectorId, c, patch))!;
  }

  /** The one place a schedule patch is applied: to the checked copy, then to the stored record. */
  #applySchedule(connectorId: string, c: Connector, patch: SchedulePatch): void {
    if (typeof patch.is_historical_sync === 'boolean') c.status.is_historical_sync = patch.is_historical_sync;
    if (typeof patch.sync_frequency === 'number') c.sync_frequency = patch.sync_frequency;
    if (patch.daily_sync_time === null) delete c.daily_sync_time;
    else if (typeof patch.daily_sync_time === 'string') c.daily_sync_time = patch.daily_sync_time;
    if (patch.schedule_type === 'auto' || patch.schedule_type === 'manual') c.schedule_type = patch.schedule_type;
    if (typeof patch.paused === 'boolean') {
      c.paused = patch.paused;
      if (!this.#running.has(connectorId)) c.status.sync_state = patch.paused ? 'paused' : 'scheduled';
    }
  }

  #connector(id: string): Connector {
    const connector = this.#store.getConnector(id);
    if (!connector) throw new SimulationRefusal(404, 'NotFound_Connector', `Connector with id '${id}' does not exist.`);
    return connector;
  }

  #event(event: string, connector: Connector, run: SyncRun, data: Record<string, unknown>): EmulatorEvent {
    return {
      event,
      created: this.#now().toISOString(),
      connector_type: connector.service,
      connector_id: connector.id,
      connector_name: connector.schema,
      group_id: connector.group_id,
      sync_id: run.sync_id,
      data,
    };
  }
}
