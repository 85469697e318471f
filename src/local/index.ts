export { runDebug } from './run-debug.js';
export type { DebugOptions, DebugResult } from './run-debug.js';
export { resetProject, resetTargets } from './reset-project.js';
export { validateProject, probeProject } from './check-project.js';
export type { ValidationReport } from './check-project.js';
export { projectPaths } from './project-paths.js';
export type { ProjectPaths } from './project-paths.js';
export { loadConnector } from './load-connector.js';
export { initProject, templateNames } from './init-project.js';
