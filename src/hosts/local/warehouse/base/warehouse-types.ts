/**
 * The shapes a connector hands to the warehouse: table definitions (as the
 * Python SDK's schema() returns them) and rows.
 */
import type { TableDefinition } from '../../../../connector/index.js';

/** One definition for connector and warehouse: what schema() returns is what declare() takes. */
export type { TableDefinition };

export type Row = Record<string, unknown>;

export interface WarehouseCounts {
  schemaChanges: number;
}
