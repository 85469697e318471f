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

/** Whether the bundle must leave `id` to this plugin rather than keep it an import of its own. */
export const facadeFreeBuiltin = (id) => FACADE_COSTS.has(id);

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

export function builtinImports(root) {
  const src = join(root, 'src');
  return {
    name: 'builtin-imports',
    resolveId(specifier, importer) {
      const name = specifier.startsWith('node:') ? specifier : `node:${specifier}`;
      if (!importer?.startsWith(src) || !isBuiltin(name) || !FACADE_COSTS.has(name)) return null;
      return BUILTIN_PREFIX + name;
    },
    load: (id) => (id.startsWith(BUILTIN_PREFIX) ? facadeFree(id.slice(BUILTIN_PREFIX.length)) : null),
  };
}
