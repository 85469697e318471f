/**
 * Node 20 without a loader thread: the project's own files (connector.ts and the helpers it imports)
 * bundled by esbuild into one ES module in the cache, imported directly. Node 20 has no in-thread
 * module hooks (`module.registerHooks`, Node 22.15+), and `module.register` starts a loader thread
 * (measured: 30 ms and 12 MB, then a round trip per later import), which is most of the cost of
 * loading a connector there.
 *
 * The bundle keeps what the hooks give: `connector-auth` (and its subpaths) is this package's file,
 * other packages stay imports of the files Node would load (resolved from the importing file, by
 * absolute URL, since the bundle sits in the cache); each file's `import.meta.url`, `dirname` and
 * `filename` are its own; an inline source map names the `.ts` lines. A project that does what a
 * bundle cannot keep as it was (`require()`, a dynamic `import()`, another `import.meta` property)
 * is not bundled: `bundleConnector` answers undefined and the caller registers the hooks instead.
 *
 * Cached by content (typescript-cache.ts's directory): a manifest per entry file lists the files
 * the bundle was made of with their hashes; a run whose files all hash the same imports the bundle
 * it names, any change makes a new one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, extname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { unresolvedImports, type UnresolvedImport } from './dependency-errors.js';
import { TARGET, cacheKey, readCached, writeCached } from './typescript-cache.js';

type Esbuild = typeof import('esbuild');
type Plugin = import('esbuild').Plugin;
type PluginBuild = import('esbuild').PluginBuild;
type OnResolveArgs = import('esbuild').OnResolveArgs;
type OnResolveResult = import('esbuild').OnResolveResult;
type OnLoadResult = import('esbuild').OnLoadResult;
type BuildResult = import('esbuild').BuildResult<{ write: false; metafile: true }>;
type Message = import('esbuild').Message;

const load = createRequire(import.meta.url);
let esbuild: Esbuild | undefined;
/** What a project file may use that a bundle cannot keep: then the hooks load it, file by file. */
const UNBUNDLABLE = /\brequire\s*\(|\bimport\s*\(|\bimport\.meta\b(?!\.(?:url|dirname|filename)\b)/;
/** Each file's own `import.meta` values, under names esbuild keeps apart per module when it hoists them. */
const META = {
  url: '__connectorAuthMetaUrl',
  dirname: '__connectorAuthMetaDirname',
  filename: '__connectorAuthMetaFile',
};

/** Marks esbuild's own resolution of a package, asked for by the plugin, so the plugin lets it through. */
const RESOLVING = Symbol('resolving a package');

interface Manifest {
  inputs: [file: string, hash: string][];
  bundle: string;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** The compiler's version and our own exports take part in every key: a new package misses once. */
function manifestKey(file: string, self: Record<string, string>): string {
  const version = (load('esbuild/package.json') as { version: string }).version;
  return cacheKey({ file, source: JSON.stringify(self), compiler: `esbuild ${version}`, options: `bundle ${TARGET}` });
}

function readManifest(directory: string, key: string): Manifest | undefined {
  const text = readCached(directory, key, '.json');
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Manifest;
  } catch {
    return undefined;
  }
}

/** The manifest's bundle file if every file it was made of is unchanged. */
function upToDate(directory: string, manifest: Manifest | undefined): string | undefined {
  if (manifest === undefined) return undefined;
  for (const [file, expected] of manifest.inputs) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    if (hash(text) !== expected) return undefined;
  }
  const bundle = join(directory, manifest.bundle);
  return existsSync(bundle) ? bundle : undefined;
}

/**
 * The path of an ES module holding `file` and the project files it imports, compiled, or undefined
 * when the project must be loaded through the hooks. Throws a SyntaxError naming the file and line
 * of a compile error.
 */
export async function bundleConnector(
  file: string,
  directory: string,
  self: Record<string, string>,
): Promise<string | undefined> {
  // The entry's absolute path names its manifest: `connector.ts` of two projects, each loaded from
  // its own directory, must not share one.
  file = resolvePath(file);
  const key = manifestKey(file, self);
  const cached = upToDate(directory, readManifest(directory, key));
  if (cached !== undefined) return cached;

  const project: ProjectFiles = { inputs: [], missing: [], bundlable: true };
  const result = await build(file, directory, projectPlugin(self, project));
  if (project.missing.length > 0) throw unresolvedImports(project.missing);
  if (!project.bundlable) return undefined;
  const text = bundleText(result, directory);
  return text === undefined ? undefined : cacheBundle(directory, key, project.inputs, text);
}

/** What the plugin learns of the project while esbuild builds it. */
interface ProjectFiles {
  /** each project file read, with its hash (the manifest's inputs) */
  inputs: [string, string][];
  /** static imports of packages that cannot be resolved */
  missing: UnresolvedImport[];
  /** no file uses what a bundle cannot keep */
  bundlable: boolean;
}

/** Keeps packages outside the bundle (this package's exports as they are) and reads the project's files. */
function projectPlugin(self: Record<string, string>, project: ProjectFiles): Plugin {
  return {
    name: 'connector-project',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => resolveImport(build, args, self, project));
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => loadProjectFile(args.path, project));
    },
  };
}

/** A bare import: this package's own file, a builtin, or the package file Node would load. */
async function resolveImport(
  build: PluginBuild,
  args: OnResolveArgs,
  self: Record<string, string>,
  project: ProjectFiles,
): Promise<OnResolveResult | undefined> {
  // build.resolve below calls this hook again for the same specifier: that call is esbuild's.
  if (args.kind === 'entry-point' || isAbsolute(args.path) || args.pluginData === RESOLVING) return undefined;
  const own = self[args.path];
  if (own) return { path: own, external: true };
  if (args.path.startsWith('node:') || isBuiltin(args.path)) return { path: args.path, external: true };
  // A package: the file Node would load, by absolute URL (the bundle is not beside the project).
  const found = await build.resolve(args.path, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    pluginData: RESOLVING,
  });
  if (found.errors.length > 0 || !found.path) {
    // A static import cannot be guarded: it fails the load. A require() or import() may sit in
    // a try for an optional package, so it is left for Node to try when it runs.
    if (args.kind === 'import-statement') project.missing.push({ specifier: args.path, importer: args.importer });
    return { path: args.path, external: true };
  }
  if (found.external) return { path: found.path, external: true };
  // A package's JSON is data, taken into the bundle: esbuild does not keep the `with { type:
  // 'json' }` that Node needs to import it from there.
  if (found.path.endsWith('.json')) return { path: found.path };
  return { path: pathToFileURL(found.path).href, external: true };
}

/** A project file (not a package's), hashed for the manifest, its `import.meta` values prefixed. */
function loadProjectFile(path: string, project: ProjectFiles): OnLoadResult | undefined {
  if (path.includes('/node_modules/') || path.includes('\\node_modules\\')) return undefined;
  const source = readFileSync(path, 'utf8');
  project.inputs.push([path, hash(source)]);
  if (UNBUNDLABLE.test(source)) project.bundlable = false;
  const ext = extname(path);
  const loader = ext === '.tsx' ? 'tsx' : ext === '.jsx' ? 'jsx' : /ts$/.test(ext) ? 'ts' : 'js';
  return { contents: metaPrefix(path) + source, loader };
}

/** esbuild's bundle of `file`, in memory; a compile error named by file and line. */
async function build(file: string, directory: string, plugin: Plugin): Promise<BuildResult> {
  esbuild ??= load('esbuild') as Esbuild;
  try {
    return await esbuild.build({
      entryPoints: [file],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      // Packages resolved as Node's ES module loader resolves them: its conditions, and `main` only
      // (esbuild would otherwise also take a package's `module` condition and field, which Node ignores).
      conditions: ['node', 'node-addons'],
      mainFields: ['main'],
      target: TARGET,
      outfile: join(directory, 'connector-bundle.js'),
      sourcemap: 'external',
      logLevel: 'silent',
      plugins: [plugin],
      define: {
        'import.meta.url': META.url,
        'import.meta.dirname': META.dirname,
        'import.meta.filename': META.filename,
      },
    });
  } catch (error) {
    throw compileError(error, file);
  } finally {
    // One build per process: its service (a child process) is not kept waiting for another.
    stopCompiler();
  }
}

/** The bundle's code with its source map inline, naming the project's files by absolute path. */
function bundleText(result: BuildResult, directory: string): string | undefined {
  const code = result.outputFiles.find((output) => output.path.endsWith('.js'))?.text;
  const mapText = result.outputFiles.find((output) => output.path.endsWith('.map'))?.text;
  if (code === undefined || mapText === undefined) return undefined;
  const map = JSON.parse(mapText) as { sources: string[] };
  // Absolute paths, as the per-file transform writes them: a stack names the project's own file.
  map.sources = map.sources.map((source) => resolvePath(directory, source));
  const body = code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  return `${body}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/** The bundle written to the cache under its manifest; undefined when the cache cannot be written. */
function cacheBundle(directory: string, key: string, inputs: [string, string][], text: string): string | undefined {
  const bundleKey = hash(`${key}\0${inputs.map(([name, sum]) => `${name}\0${sum}`).join('\0')}`);
  markModules(directory);
  writeCached(directory, bundleKey, text);
  if (readCached(directory, bundleKey) === undefined) return undefined; // an unwritable cache: the hooks load it
  writeCached(directory, key, JSON.stringify({ inputs, bundle: `${bundleKey}.js` } satisfies Manifest), '.json');
  return join(directory, `${bundleKey}.js`);
}

/** Ends esbuild's service (its child process) if this process started it: nothing it compiles is still wanted. */
export function stopCompiler(): void {
  void esbuild?.stop();
}

/** The cache's `.js` files are ES modules: a package.json beside them says so to Node. */
function markModules(directory: string): void {
  const file = join(directory, 'package.json');
  try {
    if (readFileSync(file, 'utf8').includes('"module"')) return;
  } catch {
    // not written yet
  }
  try {
    writeFileSync(file, '{ "type": "module" }\n', { mode: 0o600 });
  } catch {
    // an unwritable cache: readCached above then finds no bundle either
  }
}

/**
 * Each file's `import.meta` values, put on its first line (before anything runs, and the lines below
 * keep their numbers for the source map).
 */
function metaPrefix(file: string): string {
  return (
    `const ${META.url} = ${JSON.stringify(pathToFileURL(file).href)}, ` +
    `${META.dirname} = ${JSON.stringify(dirname(file))}, ${META.filename} = ${JSON.stringify(file)};`
  );
}

function compileError(error: unknown, entry: string): Error {
  const first = (error as { errors?: Message[] }).errors?.[0];
  if (!first) return error instanceof Error ? error : new Error(String(error));
  const where = first.location;
  const file = where ? resolvePath(where.file) : entry;
  const column = where ? where.column - (where.line === 1 ? metaPrefix(file).length : 0) : 0;
  const at = where ? `:${where.line}:${Math.max(column, 0) + 1}` : '';
  return new SyntaxError(`${file}${at}: ${first.text}`);
}
