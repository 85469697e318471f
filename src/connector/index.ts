export { defineConnector, isConnectorDefinition } from './definition/index.js';
export type {
  ConnectorDefinition,
  ColumnType,
  TableDefinition,
  State,
  SourceClients,
  UpdateContext,
  LoadedConnector,
} from './definition/index.js';
export { createOperations, rowJsonReplacer } from './definition/index.js';
export type { Operations, Destination, StateStore, OperationCounts, AlertKind } from './definition/index.js';
export {
  authenticate,
  authenticateConfiguration,
  authenticateResolved,
  resolveConfiguration,
} from './authentication/index.js';
export type { AuthenticateOptions, Authenticated, ResolvedConfiguration } from './authentication/index.js';
export { runConnector } from './run/index.js';
export type { RunConnectorOptions, RunResult } from './run/index.js';
export { probeConnector } from './run/index.js';
export type { ProbeConnectorOptions, ProbeConnectorResult } from './run/index.js';
export type { Host, ProbeHost, RotationKeeper } from './run/index.js';
export { probeLine } from './run/index.js';
export {
  checkConfigurationKeys,
  createAuthContext,
  methodCapabilities,
  offeredMethods,
  resolveMethod,
} from './authentication/index.js';
export type { OfferedMethod } from './authentication/index.js';
