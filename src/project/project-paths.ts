import { resolve, join } from 'node:path';

/**
 * Where a connector project keeps things, as the Python SDK's local tester lays them out:
 * `<project>/configuration.json`, `<project>/files/warehouse.db`, `<project>/files/state.json`.
 */
export interface ProjectPaths {
  project: string;
  configuration: string;
  files: string;
  warehouse: string;
  state: string;
}

/** The configuration: --configuration, then CONNECTOR_CONFIGURATION, then the project's own file. */
export function projectPaths(
  project = '.',
  configuration?: string,
  env: NodeJS.ProcessEnv = process.env,
): ProjectPaths {
  const root = resolve(project);
  const files = join(root, 'files');
  return {
    project: root,
    configuration: resolve(configuration ?? env.CONNECTOR_CONFIGURATION ?? join(root, 'configuration.json')),
    files,
    warehouse: join(files, 'warehouse.db'),
    state: join(files, 'state.json'),
  };
}
