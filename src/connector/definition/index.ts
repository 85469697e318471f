// What a connector author writes against: the definition, its tables and state, and the operations
// update() is given.
export { defineConnector, isConnectorDefinition } from './define-connector.js';
export type {
  ConnectorDefinition,
  ColumnType,
  TableDefinition,
  State,
  SourceClients,
  UpdateContext,
  LoadedConnector,
} from './define-connector.js';
export { createOperations } from './operations.js';
export { rowJsonReplacer } from './row-guard.js';
export type { Operations, Destination, StateStore, OperationCounts, AlertKind, UpsertPaths } from './operations.js';
