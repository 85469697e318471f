import type { z } from 'zod';
import type { Logger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { ProbeResult, SourceDefinition } from '../../sources/index.js';
import type { AuthenticateOptions, ConfigurationInput } from '../authentication/index.js';
import type { ConnectorDefinition, SourceClients, TableDefinition } from '../definition/index.js';
import { startRun } from './start-run.js';

export interface ProbeConnectorOptions {
  connector: ConnectorDefinition<keyof SourceClients | SourceDefinition, z.ZodType>;
  /** Read by the host (readConfiguration), or a map read at the start (library use). */
  configuration: ConfigurationInput;
  log: Logger;
  registry: SecretRegistry;
  authenticate?: Omit<AuthenticateOptions, 'source' | 'log' | 'registry' | 'connectorSecretKeys'>;
}

export interface ProbeConnectorResult {
  probe: ProbeResult;
  /** The connector's schema(), from the same configuration update() would get ([] without one). */
  tables: TableDefinition[];
}

/**
 * The start of runConnector without the sync: authenticate, the connector's own keys, the probe —
 * in the same order and with the same checks — then the tables schema() declares. What a host runs
 * to test a configuration (Airbyte's check, Fivetran's Test) or to describe the schema (discover).
 */
export async function probeConnector(options: ProbeConnectorOptions): Promise<ProbeConnectorResult> {
  const { auth, configuration } = await startRun(options);
  try {
    const probe = await auth.probe();
    const tables = options.connector.schema ? await options.connector.schema(configuration as never) : [];
    return { probe, tables };
  } finally {
    await auth.close();
  }
}
