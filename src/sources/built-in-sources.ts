import { ConfigurationError } from '../errors/index.js';
import type { SourceDefinition } from './source-definition.js';

/** Source name → the file that implements it, imported only when a connector uses it. */
const SOURCES: Record<string, () => Promise<{ default: SourceDefinition }>> = {
  rest: () => import('./rest.js') as Promise<{ default: SourceDefinition }>,
  'signed-url': () => import('./signed-url.js') as Promise<{ default: SourceDefinition }>,
  postgres: () => import('./postgres/index.js') as Promise<{ default: SourceDefinition }>,
  sftp: () => import('./sftp/index.js') as Promise<{ default: SourceDefinition }>,
  s3: () => import('./s3/index.js') as Promise<{ default: SourceDefinition }>,
  mysql: () => import('./mysql/index.js') as Promise<{ default: SourceDefinition }>,
  ftp: () => import('./ftp/index.js') as Promise<{ default: SourceDefinition }>,
};

export const SOURCE_NAMES: readonly string[] = Object.keys(SOURCES);

export async function loadSource(name: string): Promise<SourceDefinition> {
  const load = SOURCES[name];
  if (!load)
    throw new ConfigurationError(`unknown source '${name}'; known sources: ${SOURCE_NAMES.join(', ')}`, {
      code: 'unknown_source',
    });
  return (await load()).default;
}
