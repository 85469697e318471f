import { readConfiguration } from '../../../config/index.js';
import { ConnectorError, isConnectorAuthError } from '../../../errors/index.js';
import type { CallSecrets } from '../state/index.js';
import type { ServeContext } from '../serve-context.js';
import { tableMessages, type TableMessage } from '../records/index.js';
import { fromForm } from './form-switches.js';

/**
 * Schema: the connector's `schema()` on the request's configuration (its own keys typed, defaults
 * applied, secrets registered and hidden from printing), as tables without a schema name. No
 * authentication: schema() reads the configuration only, as in `debug`.
 *
 * A connector without schema() answers `schema_response_not_supported`, as the Python connector SDK
 * does: tables and columns then come from the records of each Update, typed from their values.
 */

export type SchemaResponseMessage =
  | { schema_response_not_supported: true }
  | { without_schema: { tables: TableMessage[] }; selection_not_supported: false };

export async function runSchema(
  request: { configuration?: Record<string, string> },
  context: ServeContext,
  registry: CallSecrets,
): Promise<SchemaResponseMessage> {
  const { connector } = context;
  const log = context.log(registry);
  const read = readConfiguration(fromForm(request.configuration ?? {}), {
    registry,
    connectorSecretKeys: connector.secretKeys ?? [],
  });
  if (!connector.schema) {
    log.info('Schema: the connector declares no schema(); tables and columns come with the records');
    return { schema_response_not_supported: true };
  }
  const configuration = read.forConnector(connector.configuration);
  let declared: unknown;
  try {
    declared = await connector.schema(configuration);
  } catch (error) {
    if (isConnectorAuthError(error)) throw error;
    throw new ConnectorError(
      `the connector's schema() failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        code: 'schema_failed',
        hint: 'see the connector code',
        cause: error,
      },
    );
  }
  const tables = tableMessages(declared);
  log.info(`Schema: ${tables.length} table(s): ${tables.map((t) => t.name).join(', ')}`);
  return { without_schema: { tables }, selection_not_supported: false };
}
