import { readTextFile, withoutByteOrderMark } from '../../../config/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { SyncMode } from '../messages/index.js';

/** A stream `read` was asked for, and how. */
export interface SelectedStream {
  name: string;
  syncMode: SyncMode;
}

/**
 * `--catalog FILE`, the ConfiguredAirbyteCatalog: the streams the user selected. Records of any
 * other table are not sent. Only what `read` needs is checked (each stream's name and sync mode);
 * the rest of the catalog is Airbyte's.
 */
export function readConfiguredCatalog(path: string): SelectedStream[] {
  const given = readJsonFile(path, '--catalog', 'the configured catalog (ConfiguredAirbyteCatalog) as JSON');
  const streams = (given as { streams?: unknown } | null)?.streams;
  if (!Array.isArray(streams)) throw invalid(path, 'has no "streams" array');
  return streams.map((entry: unknown, index) => {
    const { stream, sync_mode } = (entry ?? {}) as { stream?: { name?: unknown }; sync_mode?: unknown };
    if (typeof stream?.name !== 'string') throw invalid(path, `stream ${index + 1} has no stream.name`);
    const syncMode = sync_mode ?? 'full_refresh';
    if (syncMode !== 'full_refresh' && syncMode !== 'incremental')
      throw invalid(path, `stream '${stream.name}' has sync_mode '${String(syncMode)}'; full_refresh or incremental`);
    return { name: stream.name, syncMode };
  });
}

/** A JSON file given to a command (catalog, state); errors name the flag, never quote the content. */
export function readJsonFile(path: string, flag: string, what: string): unknown {
  const text = readTextFile(path, `${flag} file`, {
    code: 'input_unreadable',
    hint: `pass ${flag} FILE: ${what}`,
  });
  try {
    return JSON.parse(withoutByteOrderMark(text));
  } catch {
    throw new ConfigurationError(`${flag} file ${path} is not valid JSON`, {
      code: 'input_not_json',
      hint: `pass ${flag} FILE: ${what}`,
    });
  }
}

function invalid(path: string, problem: string): ConfigurationError {
  return new ConfigurationError(`--catalog file ${path} ${problem}`, {
    code: 'catalog_invalid',
    hint: 'pass the ConfiguredAirbyteCatalog Airbyte wrote for this connection',
  });
}
