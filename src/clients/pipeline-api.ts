/**
 * `connector-auth/pipeline-api`: the typed client of the pipeline management interface.
 *
 *   import { PipelineClient } from 'connector-auth/pipeline-api';
 *   const client = new PipelineClient(source);            // inside update({ source })
 *   for await (const group of client.groups()) …
 */
export { PipelineClient } from './pipeline/index.js';
export type { PipelineClientOptions, PageRequest, ConnectorPageRequest } from './pipeline/index.js';
export { createPipelineClient } from './pipeline/index.js';
export type { PipelineConnection } from './pipeline/index.js';
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
} from './pipeline/index.js';
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
} from './pipeline/index.js';
export { NotFoundError, InvalidRequestError } from './transport/index.js';
export { MIN_LIMIT, MAX_LIMIT, DEFAULT_LIMIT, checkLimit, parseLimit } from './pipeline/index.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './transport/index.js';
export type { RetryOptions } from './transport/index.js';
