import type { Configuration, RawConfiguration } from '../../config/index.js';
import { protectProcessOutput } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import {
  authenticateConfiguration,
  checkConfigurationKeys,
  type AuthenticateOptions,
  type Authenticated,
} from '../authentication/index.js';
import type { LoadedConnector } from '../definition/index.js';
import type { ProbeHost } from './host.js';

export interface StartRunOptions {
  connector: LoadedConnector;
  /** Read once by the host (readConfiguration); the run never reads a map. */
  configuration: Configuration;
  /** Where log lines go and where a rotated secret goes (a run's host, or a probe's). */
  host: ProbeHost;
  registry: SecretRegistry;
  /** The rest of what a method may need (its files directory, timers); a rotation is the host's. */
  authenticate?: Omit<
    AuthenticateOptions,
    'source' | 'log' | 'registry' | 'connectorSecretKeys' | 'persistConfigurationValue' | 'rotatingSecret'
  >;
}

export interface StartedRun {
  auth: Authenticated;
  /** What update() and schema() get: every key, the connector's own typed, secrets protected. */
  configuration: Readonly<RawConfiguration>;
}

/**
 * The start every run shares, whether it syncs (runConnector) or only tests and describes
 * (probeConnector, for Airbyte's check and discover and Fivetran's Test): the keys checked, the
 * method and source made, the connector's own keys parsed. Nothing has gone to the network yet;
 * the caller probes, and closes `auth` when it is done.
 */
export async function startRun(options: StartRunOptions): Promise<StartedRun> {
  const { connector, registry } = options;
  const { log, rotation } = options.host;
  // Known once the connector's file has loaded, which may be after the host read the configuration.
  const read = options.configuration.addConnectorSecretKeys(connector.secretKeys ?? []);
  // A misspelt key is reported before the schemas, which would name the key it should have been.
  checkConfigurationKeys(read.keys, connector, log);
  // Outside a gating host (a script's runConnector), a connector's console.log(configuration) must
  // not print its secrets: the gate is installed once per registry (uncaught errors stay the script's).
  if (!options.host.outputGated) protectProcessOutput({ registry, uncaught: false });
  const auth = await authenticateConfiguration(read, {
    ...options.authenticate,
    ...(rotation ? { persistConfigurationValue: (key: string, value: string) => rotation.keep(key, value) } : {}),
    ...(rotation?.rotatingSecret ? { rotatingSecret: rotation.rotatingSecret } : {}),
    source: connector.source,
    ...(connector.auth ? { methods: connector.auth } : {}),
    log,
    registry,
  });
  try {
    return { auth, configuration: read.forConnector(connector.configuration) };
  } catch (error) {
    await auth.close();
    throw error;
  }
}
