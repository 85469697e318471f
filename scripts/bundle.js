// The start path in a few files: `npm run build` runs this after tsc. Our modules from src/ go
// into dist/bundle/: the CLI's entry, the package's entry points, and chunks, dynamic imports
// loaded when first reached. rolldown bundles them, since it lets start-chunks.js say which modules
// share a file (`debug` loads 9 files there instead of 28); esbuild makes the two third-party
// single files, zod and DuckDB's Node API. Every other package stays an import of its own (heavy
// SDKs lazy as before), and so do Node's built-ins but four, read through process.getBuiltinModule
// (builtin-imports.js).
//
// tsc's per-file output in dist/ stays: its declarations are the package's types, and the loader
// thread's hooks (dist/project/connector-hooks.js) are imported from there. A module that reads
// `import.meta.url` (a file beside the package, createRequire) gets the URL its own file has in
// dist/, so the bundle finds what the per-file build found.
import { readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import protobuf from 'protobufjs';
import { rolldown } from 'rolldown';
import { builtinImports, facadeFreeBuiltin } from './builtin-imports.js';
import { ZOD_MODULE, startChunks } from './start-chunks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist', 'bundle');
const META_URL = '__connectorAuthMetaUrl';

/** Each entry's name in dist/bundle/ → its source; package.json's exports and bin name these files. */
const ENTRIES = {
  'cli-main': 'src/cli/main.ts',
  index: 'src/index.ts',
  'pipeline-api': 'src/clients/pipeline-api.ts',
  'webhooks-api': 'src/clients/webhooks-api.ts',
  emulator: 'src/emulator/index.ts',
  csv: 'src/csv/index.ts',
};

/**
 * Every package stays an import of its own but zod: the configuration is parsed with it before the
 * probe, so it is always on the start path, and as one file instead of ~95 it loads in about half
 * the time. That file is CommonJS (dist/bundle/zod.cjs, without a source map: the package's sources
 * are not ours to ship), so that its bytecode is kept between runs on Node 20 too
 * (src/code-cache/): compiling its 400 KB was ~10 ms of every connector's start. Our sources'
 * `import { z } from 'zod'` becomes one small module of the run chunk that requires it through the
 * code cache; `z` reaches connectors through our entry (`import { z } from 'connector-auth'`), the
 * same copy. Our sources import only `z` from zod (types aside): the build fails on another name.
 */
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const EXTERNAL = Object.keys({ ...PACKAGE.dependencies, ...PACKAGE.devDependencies }).filter((name) => name !== 'zod');
const ZOD_FILE = 'zod.cjs';
const CODE_CACHE = join(SRC, 'code-cache', 'index.ts');

/** `zod` from our sources → ZOD_MODULE, which loads the bundled copy beside the chunks. */
const vendoredZod = {
  name: 'vendored-zod',
  resolveId: (specifier) => (specifier === 'zod' ? ZOD_MODULE : null),
  load: (id) =>
    id === ZOD_MODULE
      ? `import { requireWithCodeCache } from ${JSON.stringify(CODE_CACHE)};\n` +
        `import { fileURLToPath } from 'node:url';\n` +
        `export const z = requireWithCodeCache(fileURLToPath(new URL('./${ZOD_FILE}', import.meta.url))).z;\n`
      : null,
};

/** `import.meta.url` of a source file, as the URL of its tsc output, relative to the bundle's directory. */
const ownUrl = {
  name: 'own-import-meta-url',
  load(id) {
    if (!id.startsWith(SRC) || !id.endsWith('.ts')) return null;
    const source = readFileSync(id, 'utf8');
    if (!source.includes('import.meta.url')) return null;
    const compiled = join(ROOT, 'dist', relative(SRC, id)).replace(/\.ts$/, '.js');
    const path = relative(OUT, compiled).split('\\').join('/');
    // On the first line, so the lines below keep their numbers in the source map. Our own code
    // is what is rewritten: a quoted 'import.meta.url' (a key, a message) is left as it is.
    const prefix = `const ${META_URL} = new URL(${JSON.stringify(path)}, import.meta.url).href;`;
    const rewritten = source.replace(/(?<!['"`])\bimport\.meta\.url\b(?!['"`])/g, META_URL);
    return { code: prefix + rewritten, moduleType: 'ts' };
  },
};

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' };

/**
 * zod's locales, but English, loaded at their first call: its classic API exports every locale (60
 * of them, half of the package's code), which cost ~10 ms and 2 MB of every start for messages
 * nobody asked for. `z.locales.de()` still works: it loads zod's own CommonJS copy of that locale.
 * Paths are compared as real paths: esbuild resolves symbolic links (a node_modules that is a link,
 * pnpm's layout), and a plain comparison then missed, silently bundling all 60. The build fails if
 * the plugin did not apply.
 */
let zodLocalesReplaced = false;
const lazyZodLocales = {
  name: 'lazy-zod-locales',
  setup(builder) {
    const index = realpathSync(join(ROOT, 'node_modules', 'zod', 'v4', 'locales', 'index.js'));
    const real = (path) => {
      try {
        return realpathSync(path);
      } catch {
        return path;
      }
    };
    builder.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      real(join(args.resolveDir, args.path)) === index ? { path: index, namespace: 'zod-locales' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => {
      const lines = [
        ...readFileSync(index, 'utf8').matchAll(/export \{ default as (\w+) \} from "\.\/([\w-]+)\.js";/g),
      ].map(([, name, file]) =>
        name === 'en'
          ? `export { default as en } from ${JSON.stringify(join(dirname(index), 'en.js'))};`
          : `export const ${name} = (...args) => load(${JSON.stringify(`zod/v4/locales/${file}.cjs`)})(...args);`,
      );
      if (lines.length < 2) throw new Error('zod/v4/locales/index.js changed shape: update lazyZodLocales');
      zodLocalesReplaced = true;
      const head = "import { createRequire } from 'node:module';\nconst load = createRequire(__filename);\n";
      return { contents: head + lines.join('\n'), loader: 'js', resolveDir: dirname(index) };
    });
  },
};

// Only `z` is exported: it is all our sources import, and it holds the whole classic API.
await build({
  ...common,
  format: 'cjs',
  stdin: { contents: "export { z } from 'zod';", resolveDir: ROOT, sourcefile: 'zod-entry.js' },
  outfile: join(OUT, ZOD_FILE),
  plugins: [lazyZodLocales],
});
if (!zodLocalesReplaced) throw new Error("zod's locales index was not found while bundling zod: update lazyZodLocales");

const chunks = startChunks(ROOT);
const ours = await rolldown({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(ROOT, file)])),
  platform: 'node',
  external: (id) =>
    (id.startsWith('node:') && !facadeFreeBuiltin(id)) ||
    EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  // The entries export what their sources export, nothing the bundler adds.
  preserveEntrySignatures: 'strict',
  transform: { target: 'node20' },
  plugins: [vendoredZod, ownUrl, builtinImports(ROOT), chunks.plugin],
});
await ours.write({
  dir: OUT,
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunk-[hash].js',
  sourcemap: true,
  // The maps name the sources (shipped in src/, which keeps the comments) rather than carry a second
  // copy of each: a stack trace needs only the mapping, and the package half a megabyte less.
  sourcemapExcludeSources: true,
  comments: false,
  codeSplitting: chunks.codeSplitting,
});
await ours.close();

/**
 * What @duckdb/node-bindings' index does (the binding of this platform), but on Linux it tells glibc
 * from musl by ldd's text, as detect-libc's own second check does, instead of detect-libc's first:
 * Node's diagnostic report, which loaded 46 of Node's modules (child_process, dgram, tls...) and cost
 * 5–6 ms and 2 MB of every start. Anything unsure (no ldd, another text, no such binding) goes to
 * the package's own index.
 */
const DUCKDB_VERSION = JSON.parse(
  readFileSync(join(ROOT, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8'),
).version;
const BINDING_LOADER = `const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const fromApi = createRequire(require.resolve('@duckdb/node-api'));
// The project installs the package (a devDependency of its own, no peer of ours): another version
// than the one bundled here would pair this JavaScript with its binding. Refused, so that the
// caller (engine/duckdb-module.ts) loads the installed package's own files instead.
const installed = fromApi('../package.json').version;
if (installed !== ${JSON.stringify(DUCKDB_VERSION)}) {
  throw Object.assign(new Error('@duckdb/node-api ' + installed + ' is installed; bundled: ${DUCKDB_VERSION}'), {
    code: 'DUCKDB_VERSION_MISMATCH',
  });
}
function glibcBinding() {
  if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) return undefined;
  let ldd;
  try {
    ldd = readFileSync('/usr/bin/ldd', 'latin1');
  } catch {
    return undefined;
  }
  if (ldd.includes('musl') || !ldd.includes('GNU C Library')) return undefined;
  try {
    const fromBindings = createRequire(fromApi.resolve('@duckdb/node-bindings'));
    return fromBindings('@duckdb/node-bindings-linux-' + process.arch + '/duckdb.node');
  } catch {
    return undefined;
  }
}
module.exports = glibcBinding() ?? fromApi('@duckdb/node-bindings');
`;

/**
 * DuckDB's Node API (CommonJS, 124 files, loaded by require() while the probe is out) as one file,
 * required by engine/duckdb-module.ts. Its native binding stays external, resolved from the
 * package's own place, so the copy always gets the binding version the package pins.
 */
const duckdbBinding = {
  name: 'duckdb-binding-beside-its-package',
  setup(builder) {
    builder.onResolve({ filter: /^@duckdb\/node-bindings$/ }, () => ({ path: 'binding', namespace: 'duckdb-binding' }));
    builder.onLoad({ filter: /.*/, namespace: 'duckdb-binding' }, () => ({
      contents: BINDING_LOADER,
      loader: 'js',
    }));
  },
};
await build({
  ...common,
  format: 'cjs',
  entryPoints: [join(ROOT, 'node_modules', '@duckdb', 'node-api', 'lib', 'index.js')],
  outfile: join(OUT, 'duckdb-node-api.cjs'),
  external: ['@duckdb/node-api'],
  plugins: [duckdbBinding],
});

/**
 * `serve`'s gRPC: grpc-js and protobufjs's light build (no .proto parser) as one CommonJS file
 * required with the code cache (hosts/fivetran/protocol.ts), instead of ~110 files that Node's
 * CommonJS loader resolved and compiled one by one (78 of 420 ms of CPU to "listening on").
 * @grpc/proto-loader stays an import of grpc-js's own (its channelz and ORCA load it if asked).
 */
await build({
  ...common,
  format: 'cjs',
  stdin: {
    contents: "module.exports = { grpc: require('@grpc/grpc-js'), protobuf: require('protobufjs/light') };",
    resolveDir: ROOT,
    sourcefile: 'grpc-entry.js',
  },
  outfile: join(OUT, 'grpc.cjs'),
  external: ['@grpc/proto-loader'],
});

/**
 * The partner SDK's protocol (protocols/fivetran/*.proto) as protobufjs's JSON descriptor, read at
 * start instead of parsing the .proto files: field names as written (keepCase), as proto-loader
 * read them. google/protobuf/timestamp.proto is protobufjs's own copy, as it was.
 */
const protocol = new protobuf.Root().loadSync(join(ROOT, 'protocols', 'fivetran', 'connector_sdk.proto'), {
  keepCase: true,
});
writeFileSync(join(OUT, 'fivetran-protocol.json'), JSON.stringify(protocol.toJSON()));

/**
 * Our output in ASCII only: one other character anywhere in a file, even a "—" in a comment, makes
 * V8 hold the whole file's source, which it keeps for lazy compilation, as a two-byte string
 * (DuckDB's 453 KB took 906, zod's 391 took 782). esbuild keeps comments as written, and rolldown
 * writes strings as they are. In a string, a template or a regular expression the escape means the
 * same character (no String.raw in src/), and in a comment it is only text.
 */
for (const name of readdirSync(OUT)) {
  if (!/\.c?js$/.test(name)) continue;
  const file = join(OUT, name);
  const text = readFileSync(file, 'utf8');
  if (!/[\u0080-\uffff]/.test(text)) continue;
  const escaped = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(file, escaped);
}
