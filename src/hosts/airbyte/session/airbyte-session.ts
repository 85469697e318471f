import { readConfiguration, type Configuration } from '../../../config/index.js';
import type { LoadedConnector, ProbeHost } from '../../../connector/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import { loadConnector } from '../../../project/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import { readAirbyteConfiguration, type AirbyteConfiguration } from './airbyte-configuration.js';
import type { MessageOutput } from '../messages/index.js';
import { ControlMessageRotation } from './control-message-rotation.js';

/** What check, discover and read share: the configuration, the connector, and where a rotation goes. */
export interface AirbyteSession {
  configuration: AirbyteConfiguration;
  /** The flat configuration, read once (its secrets registered) for the session's run. */
  flatConfiguration: Configuration;
  connector: LoadedConnector;
  /** Where the run's log lines go, and a rotated value: to Airbyte as a CONTROL message. */
  host: ProbeHost;
}

export async function openSession(options: {
  project: string;
  configPath?: string;
  output: MessageOutput;
  log: Logger;
  registry: SecretRegistry;
}): Promise<AirbyteSession> {
  if (!options.configPath)
    throw new ConfigurationError('no configuration given', {
      code: 'configuration_missing',
      hint: 'pass --config FILE',
    });
  const configuration = readAirbyteConfiguration(options.configPath);
  // Secrets registered before the connector file runs: its top-level code could already print a value.
  const flatConfiguration = readConfiguration(configuration.flat, { registry: options.registry });
  const { connector } = await loadConnector(options.project);
  return {
    configuration,
    flatConfiguration,
    connector: connector as AirbyteSession['connector'],
    host: { log: options.log, rotation: new ControlMessageRotation(configuration, options.output, options.log) },
  };
}
