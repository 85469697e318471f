import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * The two files `init` writes so that an editor and `tsc` resolve `connector-auth`'s types in a
 * connector project. Running needs neither (the CLI resolves the package to itself); type-checking
 * needs the package where TypeScript looks for it, in node_modules: `package.json` names it (at the
 * version that scaffolded the project, so the types match what `npx connector-auth` runs, with the
 * TypeScript and Node types this package is built with), `npm install` brings it, and
 * `tsconfig.json` says how the project's `.ts` files are checked (NodeNext, strict, no output).
 */

const OWN_MANIFEST = new URL('../../package.json', import.meta.url);

export interface OwnManifest {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
}

/** This package's own package.json: its name, its version, the versions of its types and compiler. */
export async function readOwnManifest(): Promise<OwnManifest> {
  return JSON.parse(await readFile(OWN_MANIFEST, 'utf8')) as OwnManifest;
}

export function editorSupportFiles(projectDir: string, own: OwnManifest): Record<string, string> {
  const manifest = {
    name: packageName(basename(projectDir)),
    private: true,
    type: 'module',
    description:
      'A connector project: connector.ts runs with `npx connector-auth debug`; `npm install` brings the types for an editor and tsc.',
    scripts: {
      validate: 'connector-auth validate',
      probe: 'connector-auth probe',
      debug: 'connector-auth debug',
      typecheck: 'tsc --noEmit',
    },
    devDependencies: {
      [own.name]: own.version,
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

/** npm's rules for a name: lower case, URL-safe, not starting with a dot or an underscore. */
function packageName(directory: string): string {
  const name = directory
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  return name || 'connector';
}
