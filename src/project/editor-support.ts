import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * The two files `init` writes so that a connector project installs and type-checks: `package.json`
 * and `tsconfig.json`. `npm install` brings connector-auth (`dependencies`: a tarball of the copy
 * that scaffolded the project, in vendor/, or the registry's), the SDK of the template's source
 * (an optional peer of connector-auth), and for development only DuckDB (the local `debug`'s
 * warehouse), TypeScript and Node's types at the versions this package is built with: so a
 * production install (`npm ci --omit=dev`) leaves DuckDB out. `tsconfig.json` says how the
 * project's `.ts` files are checked (NodeNext, strict, no output). The loader still resolves
 * `connector-auth` in connector.ts to the CLI that runs it.
 */

const OWN_MANIFEST = new URL('../../package.json', import.meta.url);

export interface OwnManifest {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

/** What a project depends on: connector-auth (a `file:` tarball or a registry range) and the template's SDKs. */
export interface ProjectDependencies {
  connectorAuth: string;
  /** Optional peers of connector-auth, each at the version this package is tested with. */
  packages: readonly string[];
}

/**
 * The local warehouse's engine: a devDependency of a project, for `debug` only. Not a peer of
 * connector-auth: an optional peer of a production dependency makes npm keep the project's copy in
 * `npm ci --omit=dev` (docs/decisions.md, "Optional peers").
 */
const DUCKDB = '@duckdb/node-api';

/** This package's own package.json: its name, its version, the versions of its types and compiler. */
export async function readOwnManifest(): Promise<OwnManifest> {
  return JSON.parse(await readFile(OWN_MANIFEST, 'utf8')) as OwnManifest;
}

export function editorSupportFiles(
  projectDir: string,
  own: OwnManifest,
  dependencies: ProjectDependencies,
): Record<string, string> {
  const manifest = {
    name: packageName(basename(projectDir)),
    private: true,
    type: 'module',
    description:
      'A connector project: `npm install`, then `npx connector-auth debug` runs connector.ts; `npm ci --omit=dev` installs what production runs.',
    scripts: {
      validate: 'connector-auth validate',
      probe: 'connector-auth probe',
      debug: 'connector-auth debug',
      typecheck: 'tsc --noEmit',
    },
    dependencies: {
      [own.name]: dependencies.connectorAuth,
      ...Object.fromEntries(dependencies.packages.map((name) => [name, testedVersion(own, name)])),
    },
    devDependencies: {
      [DUCKDB]: own.devDependencies[DUCKDB],
      '@types/node': own.devDependencies['@types/node'],
      typescript: own.devDependencies.typescript,
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      // No `types`: every installed @types package (@types/node, once installed) is included, and
      // before `npm install` the error a person sees is the one that says what is missing.
    },
    include: ['*.ts'],
  };
  return {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
  };
}

/** An optional peer at the version this package's own tests install (its devDependencies). */
function testedVersion(own: OwnManifest, name: string): string {
  const version = own.devDependencies[name];
  if (!own.peerDependencies[name] || !version) throw new Error(`${name} is not an optional peer of ${own.name}`);
  return version;
}

/** npm's rules for a name: lower case, URL-safe, not starting with a dot or an underscore. */
function packageName(directory: string): string {
  const name = directory
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  return name || 'connector';
}
