/**
 * Where connector-auth keeps what it compiled, between runs: the user's cache directory
 * (XDG_CACHE_HOME or ~/.cache, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows), never a
 * project, so a run that fails before its probe leaves the project as it was. One subdirectory per
 * kind of entry; CONNECTOR_AUTH_CACHE_DIR replaces the base (tests, read-only homes, CI caches).
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What is kept: a connector's compiled TypeScript, V8's bytecode of the bundle's CommonJS files, or
 * the existing tables of a local warehouse file (hosts/local/warehouse/engine/existing-tables-cache.ts).
 */
export type CacheKind = 'typescript' | 'v8' | 'warehouse';

export function userCacheDirectory(kind: CacheKind, env: NodeJS.ProcessEnv = process.env): string {
  if (env.CONNECTOR_AUTH_CACHE_DIR) return join(env.CONNECTOR_AUTH_CACHE_DIR, kind);
  let base: string;
  try {
    const home = homedir();
    if (process.platform === 'win32') base = env.LOCALAPPDATA ?? join(home, 'AppData', 'Local');
    else if (process.platform === 'darwin') base = join(home, 'Library', 'Caches');
    else base = env.XDG_CACHE_HOME || join(home, '.cache');
  } catch {
    base = tmpdir();
  }
  return join(base, 'connector-auth', kind);
}
