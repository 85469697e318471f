// The pipeline management interface's client: its records, page sizes, and the paging machinery
// behind groups() and connectors().
export { PipelineClient } from './pipeline-client.js';
export type { PipelineClientOptions, PageRequest, ConnectorPageRequest } from './pipeline-client.js';
export { createPipelineClient } from './create-pipeline-client.js';
export type { PipelineConnection } from './create-pipeline-client.js';
export {
  groupSchema,
  connectorSchema,
  connectorStatusSchema,
  noticeSchema,
  setupTestSchema,
  connectCardSchema,
  connectCardConfigSchema,
  pageEnvelopeSchema,
  upgradeResultSchema,
  pipelineErrorBodySchema,
  DAILY_SYNC_TIME,
  HTTP_URI,
  SETUP_STATES,
  SYNC_STATES,
  UPDATE_STATES,
  SCHEDULE_TYPES,
  SETUP_TEST_STATUSES,
} from './pipeline-records.js';
export type {
  Group,
  Connector,
  ConnectorStatus,
  UpgradeResult,
  Page,
  SetupState,
  SyncState,
  UpdateState,
  ScheduleType,
} from './pipeline-records.js';
export { MIN_LIMIT, MAX_LIMIT, DEFAULT_LIMIT, checkLimit, parseLimit } from './limit.js';
