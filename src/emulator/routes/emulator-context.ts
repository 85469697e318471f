import type { WebhookAuthScheme } from './auth-check.js';
import type { EmulatorStore, PageBuffers, PagingStyle } from '../store/index.js';
import type { EventDelivery, SyncSimulator } from '../syncs/index.js';
import type { FaultInjector } from './faults.js';

/** The credentials the emulator accepts. */
export interface EmulatorCredentials {
  /** Pipeline interface, HTTP Basic user name. */
  apiKey: string;
  /** Pipeline interface, HTTP Basic password. */
  apiSecret: string;
  /** Webhook interface, `Authorization: Bearer <token>`. */
  webhookToken: string;
  /** Webhook interface, HTTP Basic (default: the API key and secret). */
  webhookUsername: string;
  webhookPassword: string;
}

/** Switchable at run time through `PUT /_emulator/settings`. */
export interface EmulatorSettings {
  pagingStyle: PagingStyle;
  /** How an unknown webhook id is answered: a 404, or a 200 whose body says not_found (both appear in section 7). */
  webhookNotFoundAs: 'http_404' | 'status_200';
  /** Which Authorization schemes the webhook interface accepts (section 5.2 leaves it ambiguous). */
  webhookAuthSchemes: WebhookAuthScheme[];
  /** Start time used when a daily connector has no daily_sync_time (rule 2.2.4). */
  baselineStartTime: string;
}

/** What every route handler reaches: the data, the simulation, and the knobs. */
export interface EmulatorContext {
  readonly store: EmulatorStore;
  readonly simulator: SyncSimulator;
  readonly delivery: EventDelivery;
  readonly faults: FaultInjector;
  /** Where page bodies are assembled, reused between responses. */
  readonly pageBuffers: PageBuffers;
  readonly credentials: EmulatorCredentials;
  /** Bearer token of the example REST API (example-api.ts). */
  readonly exampleApiToken: string;
  readonly settings: EmulatorSettings;
  readonly now: () => Date;
}
