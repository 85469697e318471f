// The sync lifecycle of spec 2.2 (runs, outcomes, the schedule) and the events it delivers to webhooks.
export { SyncSimulator, SimulationRefusal, SYNC_OUTCOMES } from './sync-simulation.js';
export type { EmulatorEvent, SyncOutcome, SyncTrigger, SyncRun } from './sync-simulation.js';
export { nextScheduledSync, startOffsetMinutes } from './sync-schedule.js';
export type { NextSync } from './sync-schedule.js';
export { EventDelivery } from './event-delivery.js';
export type { Delivery } from './event-delivery.js';
