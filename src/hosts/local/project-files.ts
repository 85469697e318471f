import { statSync, type Stats } from 'node:fs';
import { ConfigurationError } from '../../errors/index.js';
import type { ProjectPaths } from '../../project/index.js';

/**
 * The files a local run reads and replaces, and `reset` deletes: the warehouse, DuckDB's write-ahead
 * log and the state. Each must be a regular file when it exists. Anything else there (a directory
 * made by mistake, a socket) is reported by path before anything is read, probed or deleted: debug
 * would otherwise fail on it halfway, and reset delete the warehouse and then stop on it.
 * Looked at synchronously, as a command's start reads its small files (config/file/read-text-file.ts).
 */
export function runFiles(paths: ProjectPaths): string[] {
  return [paths.warehouse, `${paths.warehouse}.wal`, paths.state];
}

export function checkRunFiles(paths: ProjectPaths, doing: 'run' | 'reset'): void {
  for (const path of runFiles(paths)) {
    let stats: Stats | undefined;
    try {
      stats = statSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        throw new ConfigurationError(`cannot use ${path} (${code ?? 'unknown error'})`, {
          code: 'project_file_unreadable',
          hint: `check the permissions of ${path}`,
          cause: error,
        });
    }
    if (stats === undefined || stats.isFile()) continue;
    const what = stats.isDirectory() ? 'a directory' : 'not a regular file';
    throw new ConfigurationError(`${path} is ${what}, not the file the local runner keeps there`, {
      code: 'project_file_not_a_file',
      hint:
        doing === 'reset'
          ? `nothing was deleted: move or remove ${path} yourself (reset deletes files only), then run reset again`
          : `move or remove ${path} yourself (reset deletes files only), then run again`,
    });
  }
}
