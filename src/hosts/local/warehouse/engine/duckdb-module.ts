/**
 * Loading DuckDB's Node API. Through `require()`, not `import()`: the package is CommonJS (124
 * files), and an ES `import` of it makes Node scan every file with its CommonJS export lexer and
 * send it through the ES loader (and, with a connector's loader hooks registered, through their
 * thread), which cost 95–110 ms and 30 MB more than `require()` (50–55 ms) in `debug`'s start-up.
 * Loading the module creates no file: `preloadDuckDB()` may run before the probe has succeeded.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { requireWithCodeCache } from '../../../../code-cache/index.js';
import { requireOptionalPackage } from '../../../../errors/index.js';
import type { Api } from '../base/index.js';

/**
 * The build's copy of the package's JavaScript in one file (scripts/bundle.js; its native binding is
 * still the one the package resolves): 35–40 ms less CPU and 5 MB less than its 124 files, and its
 * bytecode kept between runs (code-cache/). Relative to this file's place in dist/; from src/ (tests
 * under tsx) it is not there and the package loads.
 */
const BUNDLED = '../../../../bundle/duckdb-node-api.cjs';

let api: Api | undefined;

/**
 * The package is a devDependency of a connector project (so that a production install leaves it
 * out), resolved from here: the bundled copy resolves it for its native binding, and a project
 * without it gets one configuration error naming it.
 */
export function loadDuckDB(): Api {
  api ??= requireOptionalPackage(PACKAGE, '`debug` (its local warehouse)', requireApi);
  return api;
}

const PACKAGE = '@duckdb/node-api';

/**
 * The bundled copy, or the installed package's own files: from src/ (no bundle), or when the
 * project installed another version than the one bundled (the copy refuses to load).
 */
function requireApi(): Api {
  const bundled = fileURLToPath(new URL(BUNDLED, import.meta.url));
  try {
    return requireWithCodeCache(bundled) as Api;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'DUCKDB_VERSION_MISMATCH') throw error;
    return createRequire(import.meta.url)(PACKAGE) as Api;
  }
}

/** Loads DuckDB's module, opening no file, so that a run can load it while its probe is on the network. */
export function preloadDuckDB(): void {
  loadDuckDB();
}
