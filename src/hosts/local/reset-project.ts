import { rm } from 'node:fs/promises';
import { projectPaths } from '../../project/index.js';

/**
 * `connector-auth reset`: deletes the local warehouse (with DuckDB's write-ahead log) and the state,
 * and nothing else: a refresh-token recovery file or the author's own files under files/ survive.
 */
export async function resetProject(project = '.'): Promise<{ removed: string[] }> {
  const paths = projectPaths(project);
  const targets = [paths.warehouse, `${paths.warehouse}.wal`, paths.state];
  const removed: string[] = [];
  for (const target of targets) {
    try {
      await rm(target);
      removed.push(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return { removed };
}

/** What reset would delete, for the question asked before it does. */
export function resetTargets(project = '.'): string[] {
  const paths = projectPaths(project);
  return [paths.warehouse, paths.state];
}
