/**
 * Writing runs of operations: rows buffered into runs, a run appended straight into its table or
 * staged and merged, the open append transaction.
 */
export { AppendGroups } from './append-groups.js';
export { BatchWriter } from './batch-writer.js';
export type { UpsertPaths } from './batch-writer.js';
export { buildChunks, directColumns, fittingColumns, physicalColumns } from './direct-append.js';
export { deleteStatement, truncateStatement, updateStatements, upsertStatements } from './merge-sql.js';
export { bufferOperation } from './operation-buffer.js';
export { stageColumn } from './staged-column.js';
export type { StagedColumn } from './staged-column.js';
export { MERGED_REF, MERGED_TABLE, STAGE_REF, StagingTable, castCheckError } from './staging-table.js';
