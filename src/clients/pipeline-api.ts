/**
 * `connector-auth/pipeline-api`: the typed client of the pipeline management interface.
 *
 *   import { PipelineClient } from 'connector-auth/pipeline-api';
 *   const client = new PipelineClient(source);            // inside update({ source })
 *   for await (const group of client.groups()) …
 */
export { PipelineClient } from './pipeline/pipeline-client.js';
export type { PipelineClientOptions, PageRequest, ConnectorPageRequest } from './pipeline/pipeline-client.js';
export { createPipelineClient } from './pipeline/create-pipeline-client.js';
export type { PipelineConnection } from './pipeline/create-pipeline-client.js';
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
} from './pipeline/pipeline-records.js';
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
} from './pipeline/pipeline-records.js';
export { NotFoundError, InvalidRequestError } from './transport/client-errors.js';
export { MIN_LIMIT, MAX_LIMIT, DEFAULT_LIMIT, checkLimit, parseLimit } from './pipeline/limit.js';
export type { HttpTransport, TransportRequestInit, TransportResponse } from './transport/http-transport.js';
export type { RetryOptions } from './transport/retry-policy.js';
