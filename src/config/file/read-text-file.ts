import { readFileSync } from 'node:fs';
import { ConfigurationError, type ConfigurationCode } from '../../errors/index.js';

/**
 * A file a command was given (configuration.json, Airbyte's --config, --catalog, --state), read as
 * UTF-8. A file that is missing or unreadable is bad input (exit 2) named by its `label` and path,
 * never by its content.
 *
 * Read synchronously: a small file, read once at a command's start. An asynchronous read is four
 * round trips to libuv's thread pool (open, stat, read, close), and while the other core is busy
 * (DuckDB opening the warehouse) each one waits for a core: 3–12 ms against 0.05 ms measured.
 */
export function readTextFile(path: string, label: string, failure: { code: ConfigurationCode; hint: string }): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigurationError(
      code === 'ENOENT' ? `${label} ${path} does not exist` : `cannot read ${label} ${path} (${code ?? 'error'})`,
      { ...failure, cause: error },
    );
  }
}
