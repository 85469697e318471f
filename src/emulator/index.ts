// The emulator's one door; each family (routes/, store/, data/, syncs/) has its own index.ts.
export { startEmulator, DEMO_CREDENTIALS } from './server.js';
export type { EmulatorOptions, RunningEmulator, RequestRecord } from './server.js';
export { FEATURE_NOT_AVAILABLE } from './routes/index.js';
export type { EmulatorCredentials, EmulatorSettings, WebhookAuthScheme } from './routes/index.js';
export { EmulatorStore, encodeCursor, decodeCursor } from './store/index.js';
export type { Transformation, PagingStyle } from './store/index.js';
export {
  defaultEmulatorData,
  DEFAULT_GROUP_SIZES,
  parseEmulatorData,
  readEmulatorData,
  emulatorDataSchema,
} from './data/index.js';
export type { EmulatorData, EmulatorDataInput } from './data/index.js';
export { nextScheduledSync, startOffsetMinutes, SYNC_OUTCOMES } from './syncs/index.js';
export type { NextSync, EmulatorEvent, SyncOutcome, SyncTrigger, SyncRun, Delivery } from './syncs/index.js';
