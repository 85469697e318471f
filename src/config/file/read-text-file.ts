import { readFile } from 'node:fs/promises';
import { ConfigurationError } from '../../errors/index.js';

/**
 * A file a command was given (configuration.json, Airbyte's --config, --catalog, --state), read as
 * UTF-8. A file that is missing or unreadable is bad input (exit 2) named by its `label` and path,
 * never by its content.
 */
export async function readTextFile(
  path: string,
  label: string,
  failure: { code: string; hint: string },
): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigurationError(
      code === 'ENOENT' ? `${label} ${path} does not exist` : `cannot read ${label} ${path} (${code ?? 'error'})`,
      { ...failure, cause: error },
    );
  }
}
