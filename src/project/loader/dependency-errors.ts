/**
 * A package the connector imports that is not there, or that Node cannot load: a fault of the
 * project's setup (its node_modules), not of its code, so exit 2 with the import named and
 * `npm install` as the fix, whichever loader path (the Node 20 bundle or the module hooks) met it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../../errors/index.js';

export interface UnresolvedImport {
  /** The specifier as written, e.g. `date-fns` or `lodash/fp`. */
  specifier: string;
  /** The file that imports it. */
  importer: string;
}

/** Node's codes for a package that is absent, not exported that way, or whose files or addon fail to load. */
const PACKAGE_LOAD_CODES = new Set([
  'ERR_MODULE_NOT_FOUND',
  'MODULE_NOT_FOUND',
  'ERR_PACKAGE_PATH_NOT_EXPORTED',
  'ERR_UNSUPPORTED_DIR_IMPORT',
  'ERR_DLOPEN_FAILED',
]);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Whether `name` has a folder in a node_modules on the way up from `directory`, as Node looks. */
function installedAbove(name: string, directory: string): boolean {
  for (let dir = directory; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

export function unresolvedImports(missing: UnresolvedImport[]): ConfigurationError {
  const first = missing[0]!;
  const name = packageName(first.specifier);
  const others = [...new Set(missing.slice(1).map((m) => `'${m.specifier}'`))];
  const what = installedAbove(name, dirname(first.importer))
    ? `'${first.specifier}', which package '${name}' does not export (check the import path and the installed version)`
    : `'${first.specifier}', which is not installed`;
  const also = others.length > 0 ? `; also unresolved: ${others.join(', ')}` : '';
  return new ConfigurationError(`${first.importer} imports ${what}${also}`, {
    code: 'dependency_missing',
    hint: `run \`npm install\` in the project (or \`npm install ${name}\`), then try again`,
  });
}

/**
 * The error Node threw while loading the connector, as a dependency error when it is one: a bare
 * specifier (a package, not one of the project's own files) that could not be found or loaded.
 * Anything else (the connector's own code failing) answers undefined.
 */
export function dependencyFailure(error: unknown, project: string): ConfigurationError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !PACKAGE_LOAD_CODES.has(code)) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_DLOPEN_FAILED') {
    return new ConfigurationError(`a package's native addon failed to load: ${message.split('\n')[0]}`, {
      code: 'dependency_load_failed',
      hint: 'run `npm rebuild` (or `npm ci`) in the project on this platform and Node version, then try again',
      cause: error,
    });
  }
  const importer = /imported from (\S+)/.exec(message)?.[1] ?? join(project, 'connector.ts');
  const quoted = /(?:package|module) '([^']+)'/.exec(message)?.[1];
  if (quoted !== undefined && /^[^./]/.test(quoted) && !quoted.startsWith('file:')) {
    const failure = unresolvedImports([{ specifier: quoted, importer }]);
    return new ConfigurationError(failure.message, { code: failure.code, hint: failure.hint, cause: error });
  }
  // A file inside a package that is missing or not exported: the package named from its folder.
  const owner = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(message)?.[1];
  if (owner === undefined) return undefined;
  return new ConfigurationError(`${importer} imports a path that package '${owner}' does not export or hold`, {
    code: 'dependency_missing',
    hint: 'check the import path against the installed version of the package, or run `npm install` in the project',
    cause: error,
  });
}
