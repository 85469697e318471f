export { runDebug } from './run-debug.js';
export type { DebugOptions, DebugResult } from './run-debug.js';
export { resetProject, resetTargets } from './reset-project.js';
export { readState, writeStateAtomically } from './state-file.js';
export { Warehouse } from './warehouse/index.js';
