import type { z } from 'zod';
import type { AuthMethod, AuthMethodName } from '../../auth/index.js';
import type { ConnectedSource, SourceDefinition } from '../../sources/index.js';
import type { SourceClients, UpdateContext } from './define-connector.js';
import type { TableDefinition } from './table-definition.js';

/**
 * A connector as a host holds it once loaded: what `defineConnector` returned, its author's types
 * erased to what the run can check (any source, any keys of its own, a source client it knows only
 * as connected). Every `ConnectorDefinition` is one; `schema` and `update` are methods, which
 * TypeScript compares both ways, so the author's narrower configuration and client still fit.
 */
export interface LoadedConnector {
  readonly source: keyof SourceClients | SourceDefinition;
  readonly configuration?: z.ZodType;
  readonly secretKeys?: readonly string[];
  readonly auth?: readonly (AuthMethodName | AuthMethod)[];
  schema?(configuration: Readonly<Record<string, string>>): TableDefinition[] | Promise<TableDefinition[]>;
  update(context: UpdateContext<Readonly<Record<string, string>>, ConnectedSource>): Promise<void> | void;
}
