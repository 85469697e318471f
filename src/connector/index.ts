export { defineConnector, isConnectorDefinition } from './define-connector.js';
export type {
  ConnectorDefinition,
  ColumnType,
  TableDefinition,
  State,
  SourceClients,
  UpdateContext,
} from './define-connector.js';
export { createOperations, rowJsonReplacer } from './operations.js';
export type { Operations, Destination, StateStore, OperationCounts } from './operations.js';
export { authenticate, authenticateResolved, resolveConfiguration } from './authenticate.js';
export type { AuthenticateOptions, Authenticated, ResolvedConfiguration } from './authenticate.js';
export { runConnector } from './run-connector.js';
export type { RunConnectorOptions, RunResult } from './run-connector.js';
export { probeConnector } from './probe-connector.js';
export type { ProbeConnectorOptions, ProbeConnectorResult } from './probe-connector.js';
export { checkConfigurationKeys } from './configuration-keys.js';
export { createAuthContext } from './auth-context.js';
