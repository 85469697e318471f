import type { z } from 'zod';
import type { AuthMethod, AuthMethodName } from '../../auth/index.js';
import type { Logger } from '../../log/index.js';
import type { ConnectedSource, SourceDefinition } from '../../sources/index.js';
import type { PostgresSource, RestSource, S3Source, SftpSource, SignedUrlSource } from '../../sources/index.js';
import type { FtpSource, MysqlSource } from '../../sources/index.js';
import type { Operations } from './operations.js';
import type { State, TableDefinition } from './table-definition.js';

export type { ColumnType, TableDefinition, State } from './table-definition.js';

/** Built-in source names and the client each gives update(). */
export interface SourceClients {
  rest: RestSource;
  'signed-url': SignedUrlSource;
  postgres: PostgresSource;
  sftp: SftpSource;
  s3: S3Source;
  mysql: MysqlSource;
  ftp: FtpSource;
}

export interface UpdateContext<Config, Source> {
  /** Every configuration key as a string, plus the connector's own keys as its schema typed them. */
  configuration: Config;
  /** The state saved by the last checkpoint (`{}` on a first run). */
  state: State;
  /** The authenticated, already-probed source client. */
  source: Source;
  op: Operations;
  /** Lines go through the redactor; they say `message_origin: connector`. */
  log: Logger;
}

export interface ConnectorDefinition<
  Name extends keyof SourceClients | SourceDefinition = keyof SourceClients,
  Keys extends z.ZodType = z.ZodType,
> {
  /** A built-in source name, or a custom source made with defineSource(). */
  source: Name;
  /** The connector's own configuration keys (strings in, typed out). */
  configuration?: Keys;
  /** Keys of the connector's own that hold secrets, beyond those whose names say so. */
  secretKeys?: readonly string[];
  /**
   * The auth methods this connector offers (`['bearer', 'oauth2_refresh_token']`): the Fivetran form,
   * the Airbyte spec and `validate` offer only these, and a configuration naming another is refused.
   * Without it, every built-in method the source accepts is offered. An entry may be a method of the
   * connector's own (`defineAuthMethod({ name, keys, provides, secretKeys, create })`), offered
   * exactly as a built-in one; its `secretKeys` join the connector's.
   */
  auth?: readonly (AuthMethodName | AuthMethod)[];
  /** The tables to declare, from the same configuration update() gets: the connector's own keys typed, defaults applied. */
  schema?: (
    configuration: Readonly<Record<string, string>> & z.output<Keys>,
  ) => TableDefinition[] | Promise<TableDefinition[]>;
  update(
    context: UpdateContext<
      Readonly<Record<string, string>> & z.output<Keys>,
      Name extends keyof SourceClients
        ? SourceClients[Name]
        : Name extends SourceDefinition<z.ZodType, infer C>
          ? C
          : ConnectedSource
    >,
  ): Promise<void> | void;
}

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

/**
 * The one export of a connector file: it gives update() its types, and joins the secret keys of the
 * connector's own auth methods to its `secretKeys`.
 */
export function defineConnector<
  Name extends keyof SourceClients | SourceDefinition = 'rest',
  // zod's own spelling of an object without keys (a connector that declares none of its own).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  Keys extends z.ZodType = z.ZodObject<{}>,
>(definition: ConnectorDefinition<Name, Keys>): ConnectorDefinition<Name, Keys> {
  const methodSecrets = (definition.auth ?? []).flatMap((entry) =>
    typeof entry === 'string' ? [] : (entry.secretKeys ?? []),
  );
  // Registered wherever the connector's own secret keys are (every host reads `secretKeys`), before anything runs.
  const secretKeys =
    methodSecrets.length > 0 ? { secretKeys: [...new Set([...(definition.secretKeys ?? []), ...methodSecrets])] } : {};
  return Object.freeze({ ...definition, ...secretKeys });
}

export function isConnectorDefinition(value: unknown): value is LoadedConnector {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { update?: unknown }).update === 'function' &&
    'source' in value
  );
}
