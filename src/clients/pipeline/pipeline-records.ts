import { z } from 'zod';

/**
 * The records of the pipeline management interface (specification 2.1, 2.2, 2.5, 4.3), with the wire
 * names the real service uses (the specification lists connector fields by meaning only). Every
 * field is typed; unknown fields are kept, so a newer service adds fields without breaking a client.
 *
 * Required are the fields without which a record means nothing (identity, group, type, name, states,
 * schedule). Fields a service may leave out for some connectors (a connector never synced has no
 * `succeeded_at`; one not created through a connect card has no `connect_card`) are optional, but
 * validated whenever present: rejecting a whole page for a missing optional field helps nobody.
 */

/** ISO 8601 with an offset or Z; fractional seconds allowed (section 2.1 shows them). */
const timestamp = z.iso.datetime({ offset: true });

/**
 * An absolute http(s) URI. A pattern rather than z.url(): it is checked on every record of every page,
 * and `new URL()` per record halves listing throughput for no gain in what the check catches.
 */
export const HTTP_URI = /^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i;
const httpUri = z.string().regex(HTTP_URI);
const optionalTimestamp = timestamp.nullable().optional();

/** Section 2.2 and 8: whole hours only, 00:00 to 23:00. */
export const DAILY_SYNC_TIME = /^(?:[01]\d|2[0-3]):00$/;

export const SETUP_STATES = ['incomplete', 'connected', 'broken'] as const;
export const SYNC_STATES = ['scheduled', 'syncing', 'paused', 'rescheduled'] as const;
export const UPDATE_STATES = ['on_schedule', 'delayed'] as const;
export const SCHEDULE_TYPES = ['auto', 'manual'] as const;
export const SETUP_TEST_STATUSES = ['PASSED', 'SKIPPED', 'WARNING', 'FAILED', 'JOB_FAILED'] as const;

export const groupSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  created_at: timestamp,
});

/** A task or a warning: something the connector's owner should know or do. */
export const noticeSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

export const connectorStatusSchema = z.looseObject({
  setup_state: z.enum(SETUP_STATES),
  sync_state: z.enum(SYNC_STATES),
  update_state: z.enum(UPDATE_STATES),
  /** Rule 2.2.1–2: true makes only the next sync historical; absent means false. */
  is_historical_sync: z.boolean().optional(),
  schema_status: z.string().optional(),
  tasks: z.array(noticeSchema).optional(),
  warnings: z.array(noticeSchema).optional(),
  rescheduled_for: optionalTimestamp,
});

export const setupTestSchema = z.looseObject({
  title: z.string(),
  status: z.enum(SETUP_TEST_STATUSES),
  message: z.string().optional(),
  details: z.unknown().optional(),
});

/** The connect card's token lets anyone holding it set the connector up: a secret (see pipeline-client.ts). */
export const connectCardSchema = z.looseObject({
  token: z.string(),
  uri: httpUri,
});

export const connectCardConfigSchema = z.looseObject({
  /** Section 2.2: must start with http or https. */
  redirect_uri: httpUri.optional(),
  hide_setup_guide: z.boolean().optional(),
});

export const connectorSchema = z.looseObject({
  id: z.string().min(1),
  group_id: z.string().min(1),
  service: z.string().min(1),
  /** Section 2.2 leaves the type open; the real service sends an integer. */
  service_version: z.union([z.number().int(), z.string()]).optional(),
  schema: z.string().min(1),
  paused: z.boolean(),
  status: connectorStatusSchema,
  config: z.record(z.string(), z.unknown()).optional(),
  daily_sync_time: z.string().regex(DAILY_SYNC_TIME).nullable().optional(),
  succeeded_at: optionalTimestamp,
  failed_at: optionalTimestamp,
  connect_card: connectCardSchema.optional(),
  sync_frequency: z.number().int().positive(),
  pause_after_trial: z.boolean().optional(),
  connected_by: z.string().optional(),
  setup_tests: z.array(setupTestSchema).optional(),
  source_sync_details: z.record(z.string(), z.unknown()).nullable().optional(),
  created_at: timestamp,
  schedule_type: z.enum(SCHEDULE_TYPES).optional(),
  connect_card_config: connectCardConfigSchema.optional(),
});

/** Section 2.5: `next_cursor` absent (or null or empty) means no items remain. */
export const pageEnvelopeSchema = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
  data: z.looseObject({
    items: z.array(z.unknown()),
    next_cursor: z.string().nullable().optional(),
  }),
});

/** Section 4.3's 200 body. */
export const upgradeResultSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
});

/** The error body of the pipeline interface as the real service shapes it. */
export const pipelineErrorBodySchema = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
});

export type Group = z.output<typeof groupSchema>;
export type Connector = z.output<typeof connectorSchema>;
export type ConnectorStatus = z.output<typeof connectorStatusSchema>;
export type UpgradeResult = z.output<typeof upgradeResultSchema>;
export type SetupState = (typeof SETUP_STATES)[number];
export type SyncState = (typeof SYNC_STATES)[number];
export type UpdateState = (typeof UPDATE_STATES)[number];
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; undefined when no items remain. */
  nextCursor: string | undefined;
}
