import type { ProbeResult } from '../../sources/index.js';
import type { TableDefinition } from '../definition/index.js';
import { probeLine } from './run-lines.js';
import { startRun, type StartRunOptions } from './start-run.js';

/** What a probe starts from: what any run starts from. */
export type ProbeConnectorOptions = StartRunOptions;

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
    options.host.log.info(probeLine(probe));
    const tables = options.connector.schema ? await options.connector.schema(configuration) : [];
    return { probe, tables };
  } finally {
    await auth.close();
  }
}
