import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerSecretDefaults } from '../../config/index.js';
import { isConnectorDefinition, type LoadedConnector } from '../../connector/index.js';
import { ConnectorError, isConnectorAuthError } from '../../errors/index.js';
import { dependencyFailure } from './dependency-errors.js';
import { bundleConnector, stopCompiler } from './connector-bundle.js';
import type { HookData } from './connector-hooks.js';
import { cacheDirectory } from './typescript-cache.js';

const CANDIDATES = ['connector.ts', 'connector.mts', 'connector.js', 'connector.mjs'];
let hooksRegistered = false;
const requireModule = nodeModule.createRequire(import.meta.url);

/**
 * Imports `<project>/connector.ts` (TypeScript without a build step: connector-hooks.ts compiles
 * it, cached) and returns its default export, which must come from defineConnector().
 */
export async function loadConnector(project: string): Promise<{ file: string; connector: LoadedConnector }> {
  const file = findConnectorFile(project);
  let module: { default?: unknown };
  try {
    module = await withinDeadline(file, async () => {
      const loadable = await loadableFile(file);
      return loadable.bundled
        ? await loadBundle(loadable.file)
        : ((await import(pathToFileURL(loadable.file).href)) as { default?: unknown });
    });
  } catch (error) {
    if (isConnectorAuthError(error)) throw error;
    throw (
      dependencyFailure(error, project) ??
      new ConnectorError(`cannot load ${file}: ${error instanceof Error ? error.message : String(error)}`, {
        code: 'connector_load_failed',
        hint: 'fix the error in the connector file (run with --verbose for the stack trace)',
        cause: error,
      })
    );
  }
  if (!isConnectorDefinition(module.default)) {
    throw new ConnectorError(`${file} must \`export default defineConnector({ source, update })\``, {
      code: 'connector_not_defined',
      hint: "import { defineConnector } from 'connector-auth' and export its result as default",
    });
  }
  const connector = module.default as LoadedConnector;
  // A secret key's default is known the moment the definition is: registered now, before any host
  // reads a configuration, so nothing the connector or a host prints from here on shows it.
  if (connector.configuration)
    registerSecretDefaults(connector.configuration, { connectorSecretKeys: new Set(connector.secretKeys ?? []) });
  return { file, connector };
}

/**
 * How long compiling and loading the connector may take: esbuild's compile of the project's own
 * files takes well under a second, so only a loader gone wrong, or top-level code that never
 * settles, reaches it. `CONNECTOR_AUTH_LOAD_TIMEOUT_SECONDS` moves it.
 */
const LOAD_DEADLINE_SECONDS = 60;

async function withinDeadline<T>(file: string, load: () => Promise<T>): Promise<T> {
  const seconds = Number(process.env.CONNECTOR_AUTH_LOAD_TIMEOUT_SECONDS) || LOAD_DEADLINE_SECONDS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stopCompiler();
      reject(
        new ConnectorError(`loading ${file} did not finish within ${seconds} s`, {
          code: 'connector_load_timeout',
          hint: 'look for top-level code in the connector (or a module it imports) that never finishes',
        }),
      );
    }, seconds * 1000);
  });
  try {
    return await Promise.race([load(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The project's bundle (an ES module in the cache), loaded by `require()` where it can be: Node
 * (20.19+) then reads it and the files it imports synchronously. `import()` reads each through
 * libuv's thread pool, and while DuckDB opens the warehouse on the other core each of those round
 * trips waits for a core (config/file/read-text-file.ts). A bundle with top-level await cannot be
 * required: it is imported, as before (Node refuses it before running any of it).
 */
async function loadBundle(file: string): Promise<{ default?: unknown }> {
  // Node 22.0–22.11 (before 22.12) requires no ES module without a flag.
  const requiresModules = (process.features as { require_module?: boolean }).require_module === true;
  try {
    if (requiresModules) return requireModule(file) as { default?: unknown };
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
  }
  return (await import(pathToFileURL(file).href)) as { default?: unknown };
}

/**
 * The file to import for the connector: where Node has no in-thread hooks (Node 20), the project
 * bundled into the cache (connector-bundle.ts) when it can be, so no loader thread starts; else the
 * connector itself, once the hooks are registered.
 */
async function loadableFile(file: string): Promise<{ file: string; bundled: boolean }> {
  if (hooksRegistered) return { file, bundled: false };
  const self = ownExports();
  const { registerHooks: registerInThread } = nodeModule as { registerHooks?: (hooks: object) => unknown };
  if (!registerInThread) {
    const bundle = await bundleConnector(file, cacheDirectory(), self);
    // The bundle carries a source map: with --verbose (which turns Node's source maps on) a stack
    // trace names the project's .ts lines.
    if (bundle !== undefined) return { file: bundle, bundled: true };
  }
  await registerHooks(self, registerInThread);
  hooksRegistered = true;
  return { file, bundled: false };
}

/** The hooks of connector-hooks.ts: in the main thread where Node can, else in its loader thread. */
async function registerHooks(
  self: Record<string, string>,
  registerInThread: ((hooks: object) => unknown) | undefined,
): Promise<void> {
  const data: HookData = { self, cacheDirectory: cacheDirectory() };
  if (registerInThread) {
    const hooks = await import('./connector-hooks.js');
    hooks.initialize(data);
    registerInThread({ resolve: hooks.resolveSync, load: hooks.loadSync });
  } else {
    nodeModule.register(new URL('./connector-hooks.js', import.meta.url), { data });
  }
  // The compiled connector carries a source map, used with --verbose. Not turned on here: Node then
  // reads and parses the map of every module loaded after it (12–20 ms of a REST connector's debug).
}

/**
 * `connector-auth` and each subpath of our `exports` map → the file URL it names. Our package.json
 * and the connector file are looked for synchronously, as a command's start reads its small files
 * (config/file/read-text-file.ts says why).
 */
function ownExports(): Record<string, string> {
  const root = new URL('../../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: string }>;
  };
  const map: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.import;
    if (file) map[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = new URL(file, root).href;
  }
  return map;
}

function findConnectorFile(project: string): string {
  for (const name of CANDIDATES) {
    const file = join(project, name);
    if (existsSync(file)) return file;
  }
  throw new ConnectorError(`no connector file in ${project} (looked for ${CANDIDATES.join(', ')})`, {
    code: 'connector_missing',
    hint: 'run `connector-auth init <dir>` to create one, or pass the project directory',
  });
}
