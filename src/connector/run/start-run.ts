import { readConfiguration, type RawConfiguration } from '../../config/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import {
  authenticate,
  checkConfigurationKeys,
  type AuthenticateOptions,
  type Authenticated,
  type ConfigurationInput,
} from '../authentication/index.js';
import type { LoadedConnector } from '../definition/index.js';
import type { ProbeHost } from './host.js';

export interface StartRunOptions {
  connector: LoadedConnector;
  /** Read by the host (readConfiguration), or a map read here (library use). */
  configuration: ConfigurationInput;
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
  const read = readConfiguration(options.configuration, { registry, connectorSecretKeys: connector.secretKeys ?? [] });
  // A misspelt key is reported before the schemas, which would name the key it should have been.
  checkConfigurationKeys(read, connector, log);
  const auth = await authenticate(read, {
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
