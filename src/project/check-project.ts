import { readConfiguration, readConfigurationFile } from '../config/index.js';
import {
  authenticateConfiguration,
  authenticateResolved,
  checkConfigurationKeys,
  resolveConfiguration,
  type LoadedConnector,
  type ResolvedConfiguration,
} from '../connector/index.js';
import type { Logger } from '../log/index.js';
import type { ProbeResult } from '../sources/index.js';
import { secrets } from '../secrets/index.js';
import { loadConnector } from './loader/index.js';
import { createConfigurationPersister } from './persist-configuration-value.js';
import { projectPaths } from './project-paths.js';

/**
 * `validate` and `probe` without the rest of `debug`: the configuration is read exactly as debug
 * reads it, and the source comes from the project's connector file when there is one.
 */

export interface ValidationReport {
  configuration: string;
  authMethod: string;
  source: string;
  keys: number;
  secretKeys: string[];
  /** Keys no schema reads and no known key is close to (a close one is an error). */
  unknownKeys: string[];
}

export async function validateProject(options: {
  project?: string;
  configurationPath?: string;
  log: Logger;
}): Promise<ValidationReport> {
  return (await checkConfiguration(options)).report;
}

/** validateProject's checks, with what they resolved (doctor reads the auth method and common keys from it). */
export async function checkConfiguration(options: {
  project?: string;
  configurationPath?: string;
  log: Logger;
}): Promise<{ report: ValidationReport; resolved: ResolvedConfiguration }> {
  const { paths, configuration, connector, unknownKeys } = await prepareProject(options);
  const resolved = await resolveConfiguration(configuration, {
    source: connector?.source ?? 'rest',
    ...(connector?.auth ? { methods: connector.auth } : {}),
    log: options.log,
  });
  // What the values mean, still offline: key material, addresses, the tunnel's settings.
  await (await authenticateResolved(resolved, { log: options.log })).close();
  // The connector's own keys, through its schema, as a run reads them.
  if (connector?.configuration) configuration.parse(connector.configuration, 'the connector');
  const report: ValidationReport = {
    configuration: paths.configuration,
    authMethod: resolved.method.name,
    source: resolved.source.name,
    keys: configuration.keys.length,
    secretKeys: [...resolved.secretKeys],
    unknownKeys,
  };
  return { report, resolved };
}

export async function probeProject(options: {
  project?: string;
  configurationPath?: string;
  log: Logger;
}): Promise<ProbeResult> {
  const { paths, configuration, connector } = await prepareProject(options);
  const auth = await authenticateConfiguration(configuration, {
    source: connector?.source ?? 'rest',
    ...(connector?.auth ? { methods: connector.auth } : {}),
    log: options.log,
    filesDir: paths.files,
    // A probe is a real run for the credential: a refresh token the server rotates must be saved,
    // or the next run starts with the consumed one.
    persistConfigurationValue: createConfigurationPersister({
      configurationPath: paths.configuration,
      filesDir: paths.files,
      log: options.log,
    }),
  });
  try {
    // The connector's own keys are checked as debug checks them (exit 2), before anything is sent.
    if (connector?.configuration) configuration.parse(connector.configuration, 'the connector');
    return await auth.probe();
  } finally {
    await auth.close();
  }
}

/**
 * The project's paths, its configuration (secrets registered, keys checked: a misspelt one is an
 * error, another unknown one a warning) and its connector, when it has one.
 */
export async function prepareProject(options: { project?: string; configurationPath?: string; log: Logger }) {
  const paths = projectPaths(options.project, options.configurationPath);
  // Secrets registered before the connector file runs: its top-level code could already print a value.
  const configuration = readConfiguration(await readConfigurationFile(paths.configuration), { registry: secrets });
  const connector = await loadConnector(paths.project).then(
    (loaded): LoadedConnector | undefined => loaded.connector,
    (error: { code?: string }) => {
      // A bare configuration (no connector file yet) is still worth validating against REST.
      if (error.code === 'connector_missing') return undefined;
      throw error;
    },
  );
  configuration.addConnectorSecretKeys(connector?.secretKeys ?? []);
  const { unknownKeys } = checkConfigurationKeys(configuration.keys, connector, options.log);
  return { paths, configuration, connector, unknownKeys };
}
