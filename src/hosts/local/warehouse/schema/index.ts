/**
 * A table's shape: declared tables and keys, the changes a run needs (new columns, widening) and
 * their SQL.
 */
export { registerDeclarations } from './declarations.js';
export type { Declaration } from './declarations.js';
export { commitPlan, planRun } from './schema-plan.js';
export type { Plan } from './schema-plan.js';
export { alterSql, createSql, planSql } from './schema-sql.js';
