// Node's built-in modules as our bundle imports them (scripts/bundle.js, a rolldown plugin).
//
// Why: when the ES loader first meets `import { x } from 'node:fs'` it makes the module's ES facade,
// which reads every export of the built-in once, getters included. Several of those getters load
// more of Node: `fs.ReadStream` loads the streams, fs/promises and readline; `util.TextDecoder`,
// `util.diff` and the like load worker_threads and the diff algorithm; `crypto.webcrypto` the Web
// Crypto API; `net.BlockList` the block list. None of it is used by `airbyte spec` or `check`, and
// each is code Node compiles at first use: ~4-5 ms of CPU of every start (profiled on Node 24,
// docs/benchmarks.md). `process.getBuiltinModule` (Node 20.16+) returns the same module object
// without reading its exports, so each named import from our sources becomes one property read of
// it, and only the exports a chunk uses are kept (the reads are marked pure for the tree-shaker).
import { isBuiltin } from 'node:module';
import { join } from 'node:path';

/** The built-ins whose ES facade costs more than the module itself. */
const FACADE_COSTS = new Set(['node:fs', 'node:util', 'node:crypto', 'node:net']);

/**
 * The built-ins loaded at the first call of one of their functions instead: fs/promises loads
 * readline and the REPL's history with it (~2 ms), and a start that reads its files synchronously
 * (`airbyte spec`) calls none of them. Each export our sources import from it is a function.
 */
const FIRST_CALL = new Set(['node:fs/promises']);

/** Whether the bundle must leave `id` to this plugin rather than keep it an import of its own. */
export const facadeFreeBuiltin = (id) => FACADE_COSTS.has(id) || FIRST_CALL.has(id);

/** The id our imports of a built-in resolve to; start-chunks.js puts it with its first importer. */
export const BUILTIN_PREFIX = '\0connector-auth:builtin:';

const identifier = (name) => {
  try {
    new Function(`const ${name} = 0;`);
    return true;
  } catch {
    return false;
  }
};

/** The module standing for `specifier`: its object as default, each export as a pure read of it. */
function facadeFree(specifier) {
  const names = Object.keys(process.getBuiltinModule(specifier)).filter(
    (name) => name !== 'default' && identifier(name),
  );
  return [
    `const $builtin = process.getBuiltinModule(${JSON.stringify(specifier)});`,
    'const $read = /* @__NO_SIDE_EFFECTS__ */ (name) => $builtin[name];',
    ...names.map((name, index) => `const $${index} = /* @__PURE__ */ $read(${JSON.stringify(name)});`),
    `export { $builtin as default, ${names.map((name, index) => `$${index} as ${name}`).join(', ')} };`,
  ].join('\n');
}

/** The module standing for `specifier` in FIRST_CALL: each function loads the built-in when called. */
function loadedAtFirstCall(specifier) {
  const builtin = process.getBuiltinModule(specifier);
  const names = Object.keys(builtin).filter((name) => typeof builtin[name] === 'function' && identifier(name));
  return [
    'let $builtin;',
    `const $load = () => ($builtin ??= process.getBuiltinModule(${JSON.stringify(specifier)}));`,
    'const $call = /* @__NO_SIDE_EFFECTS__ */ (name) => (...args) => $load()[name](...args);',
    ...names.map((name, index) => `const $${index} = /* @__PURE__ */ $call(${JSON.stringify(name)});`),
    `export { ${names.map((name, index) => `$${index} as ${name}`).join(', ')} };`,
  ].join('\n');
}

export function builtinImports(root) {
  const src = join(root, 'src');
  return {
    name: 'builtin-imports',
    resolveId(specifier, importer) {
      const name = specifier.startsWith('node:') ? specifier : `node:${specifier}`;
      if (!importer?.startsWith(src) || !isBuiltin(name) || !facadeFreeBuiltin(name)) return null;
      return BUILTIN_PREFIX + name;
    },
    load(id) {
      if (!id.startsWith(BUILTIN_PREFIX)) return null;
      const specifier = id.slice(BUILTIN_PREFIX.length);
      return FIRST_CALL.has(specifier) ? loadedAtFirstCall(specifier) : facadeFree(specifier);
    },
  };
}
