import { rm } from 'node:fs/promises';
import { projectPaths } from '../../project/index.js';
import { checkRunFiles, runFiles } from './project-files.js';
import { lockProject } from './project-lock.js';

/**
 * `connector-auth reset`: deletes the local warehouse (with DuckDB's write-ahead log) and the state,
 * and nothing else: a refresh-token recovery file or the author's own files under files/ survive.
 * Not while a run holds the project, and nothing at all when one of the three is not a file (a
 * directory named state.json): every target is checked before the first is deleted.
 */
export async function resetProject(project = '.'): Promise<{ removed: string[] }> {
  const paths = projectPaths(project);
  const lock = lockProject(paths.project, 'reset');
  try {
    checkRunFiles(paths, 'reset');
    const removed: string[] = [];
    for (const target of runFiles(paths)) {
      try {
        await rm(target);
        removed.push(target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return { removed };
  } finally {
    await lock.release();
  }
}

/** What reset would delete, for the question asked before it does. */
export function resetTargets(project = '.'): string[] {
  const paths = projectPaths(project);
  return [paths.warehouse, paths.state];
}
