import { readConfiguration } from '../../config/index.js';
import { protectProcessOutput } from '../../log/index.js';
import type { ConnectedSource, SourceDefinition } from '../../sources/index.js';
import type { SourceClients } from '../definition/index.js';
import { authenticateConfiguration, type AuthenticateOptions, type Authenticated } from './authenticate.js';

/**
 * Library mode (`authenticate(configuration)` in a script or a test, without a host): the caller's
 * map is read here, once, as a host reads its own (secrets registered first), then authenticated by
 * the path every run takes (authenticateConfiguration). This is the only entry that takes a map.
 */
export async function authenticate<Name extends keyof SourceClients = 'rest'>(
  values: Readonly<Record<string, string>>,
  options?: AuthenticateOptions & { source?: Name },
): Promise<Authenticated<SourceClients[Name]>>;
export async function authenticate<S extends ConnectedSource>(
  values: Readonly<Record<string, string>>,
  options: AuthenticateOptions & { source: SourceDefinition<never, S> },
): Promise<Authenticated<S>>;
/** A source known only at run time (a loaded connector's): its client typed as connected. */
export async function authenticate(
  values: Readonly<Record<string, string>>,
  options: AuthenticateOptions,
): Promise<Authenticated>;
export async function authenticate(
  values: Readonly<Record<string, string>>,
  options: AuthenticateOptions = {},
): Promise<Authenticated> {
  const { connectorSecretKeys, ...rest } = options;
  const configuration = readConfiguration(values, {
    ...(options.registry ? { registry: options.registry } : {}),
    ...(connectorSecretKeys ? { connectorSecretKeys } : {}),
  });
  // Outside the CLI nothing else gates the process's output: a script that prints its configuration
  // must not print the secrets in it (protectProcessOutput() also gates uncaught errors).
  protectProcessOutput({ registry: configuration.registry, uncaught: false });
  return authenticateConfiguration(configuration, rest);
}
