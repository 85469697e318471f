import { chmod, cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '../errors/index.js';
import { addCustomAuthMethod, checkAuthScaffold } from './custom-auth-scaffold.js';
import { editorSupportFiles, readOwnManifest, type ProjectDependencies } from './editor-support.js';

/** Templates shipped in the package's `templates/` folder. */
const TEMPLATES_DIR = new URL('../../templates/', import.meta.url);

export async function templateNames(): Promise<string[]> {
  const entries = await readdir(TEMPLATES_DIR, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** What may already be in the directory: a repository made first is still an empty project. */
const ALLOWED_BEFORE_INIT = new Set(['.git']);

/**
 * Written by init rather than shipped in the templates: npm leaves `.gitignore` files out of a
 * published package. The credentials and the local run's output never belong in a repository.
 */
const GITIGNORE = `# connector-auth: credentials and local run output stay out of version control
configuration.json
configuration.local.json
files/
node_modules/
secrets/
`;

/**
 * What a container build of the project must not copy in (the Dockerfile's `COPY .`): the
 * credentials, the local run's output, a recovery file of a rotated secret. Written by init for the
 * same reason as .gitignore.
 */
const DOCKERIGNORE = `# connector-auth: the image holds the connector's code, never its credentials
configuration.json
configuration.local.json
files/
node_modules/
.git/
*.recovery.json
secrets/
`;

/** The Dockerfile's placeholders for the project's name and version, which the image's Airbyte labels carry. */
const NAME_PLACEHOLDER = '__PROJECT_NAME__';
const PROJECT_VERSION_PLACEHOLDER = '__PROJECT_VERSION__';
/** Airbyte's acceptance-test configuration each template ships, with integration_tests/ beside it. */
const ACCEPTANCE_TEST_CONFIG = 'acceptance-test-config.yml';
/** A project's version until its package.json names one. */
const FIRST_VERSION = '0.1.0';
/**
 * The optional peers (package.json's peerDependencies) a template's source loads: its project lists
 * them in `dependencies`, so `npm install` brings them and a production image keeps them.
 */
const TEMPLATE_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  database: ['pg'],
  'file-storage': ['@aws-sdk/client-s3'],
};

/** This package's root: what init packs into a project's vendor/ (the installed copy or a checkout). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface InitOptions {
  /** Depend on `connector-auth` from the npm registry (`^version`) instead of a tarball in vendor/. */
  registry?: boolean;
  /** `custom`: the rest-api template with an auth method of the project's own (docs/auth/custom.md). */
  auth?: string;
}

/**
 * `connector-auth init [dir] --template NAME`: copies a template into a new or empty directory (the
 * current one by default, as the Python SDK's `fivetran init`), with the package.json and
 * tsconfig.json an editor needs for the package's types. An existing non-empty directory is refused,
 * so init never overwrites an author's work; a `.git` of its own does not count (`git init` first is common).
 * configuration.json is made readable by its owner only (0600) before a credential is put in it,
 * and a .gitignore keeps it out of git: `connector-auth doctor` checks both.
 *
 * The project's package.json depends on this very package as a tarball in `vendor/` (npm pack of the
 * running copy), so that `npm install` works where the registry does not hold connector-auth and
 * installs the version that scaffolded the project; `registry` names the registry's instead.
 */
export async function initProject(
  dir = '.',
  template = 'rest-api',
  options: InitOptions = {},
): Promise<{ dir: string; files: string[] }> {
  const names = await templateNames();
  if (!names.includes(template)) {
    throw new ConfigurationError(`unknown template '${template}'; available: ${names.join(', ')}`, {
      code: 'unknown_template',
      hint: `pass --template ${names.join('|')}`,
    });
  }
  if (options.auth !== undefined) checkAuthScaffold(options.auth, template);
  const target = resolve(dir);
  const existing = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    // The path is a file (or goes through one): a mistake in the argument, not a failure of init.
    if (error.code === 'ENOTDIR') {
      throw new ConfigurationError(
        `${target} is not a directory (it, or a folder on its path, is a file); init writes only into a new or empty directory`,
        {
          code: 'init_target_not_directory',
          hint: 'choose a new directory name',
          cause: error,
        },
      );
    }
    throw error;
  });
  if (existing.some((name) => !ALLOWED_BEFORE_INIT.has(name))) {
    throw new ConfigurationError(`${target} is not empty; init writes only into a new or empty directory`, {
      code: 'init_target_not_empty',
      hint: 'choose a new directory name',
    });
  }
  await mkdir(target, { recursive: true });
  const own = await readOwnManifest();
  // First: a failure to pack leaves the directory as empty as it was.
  const dependency = options.registry ? `^${own.version}` : `file:${await packOwnPackage(target)}`;
  await cp(new URL(template, TEMPLATES_DIR), target, { recursive: true });
  if (options.auth !== undefined) await addCustomAuthMethod(target);
  // Every configuration file of the template (the local one holds demo values, but a user may put real ones in it).
  for (const name of await readdir(target))
    if (/^configuration(\..+)?\.json$/.test(name)) await chmod(join(target, name), 0o600);
  await writeFile(join(target, '.gitignore'), GITIGNORE, { flag: 'wx' });
  await writeFile(join(target, '.dockerignore'), DOCKERIGNORE, { flag: 'wx' });
  const dependencies: ProjectDependencies = { connectorAuth: dependency, packages: TEMPLATE_PACKAGES[template] ?? [] };
  const files = editorSupportFiles(target, own, dependencies);
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text, { flag: 'wx' });
  // One Dockerfile serves every template (templates/Dockerfile): the image runs any project the same way.
  const manifest = JSON.parse(files['package.json']!) as { name: string; version?: string };
  const dockerfile = (await readFile(new URL('Dockerfile', TEMPLATES_DIR), 'utf8'))
    .replaceAll(NAME_PLACEHOLDER, manifest.name)
    .replaceAll(PROJECT_VERSION_PLACEHOLDER, manifest.version ?? FIRST_VERSION);
  await writeFile(join(target, 'Dockerfile'), dockerfile, { flag: 'wx' });
  // Airbyte's acceptance tests name the image they test: the one this Dockerfile builds, tagged `dev`.
  const acceptance = join(target, ACCEPTANCE_TEST_CONFIG);
  await writeFile(acceptance, (await readFile(acceptance, 'utf8')).replaceAll(NAME_PLACEHOLDER, manifest.name));
  return { dir: target, files: (await readdir(target)).sort() };
}

/**
 * `npm pack` of this package into `<project>/vendor/`, scripts off (the copy that runs is already
 * built): npm applies the package's own `files`, as for a publish, whether this copy is a checkout
 * or an install in some node_modules. Returns the tarball's path relative to the project.
 */
async function packOwnPackage(project: string): Promise<string> {
  const vendor = join(project, 'vendor');
  await mkdir(vendor, { recursive: true });
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', vendor, PACKAGE_ROOT];
  try {
    const stdout = await npm(args, project);
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    return `vendor/${packed!.filename}`;
  } catch (error) {
    await rm(vendor, { recursive: true, force: true });
    throw new ConfigurationError(
      `init could not pack connector-auth into ${vendor} (npm pack: ${String((error as Error).message ?? error).split('\n')[0]})`,
      {
        code: 'init_pack_failed',
        hint: 'run init where `npm` is on the PATH, or pass --registry to depend on connector-auth from the npm registry',
        cause: error,
      },
    );
  }
}

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // child_process by name: this module is loaded by every project command, npm runs only in init.
    process
      .getBuiltinModule('node:child_process')
      .execFile('npm', args, { cwd, windowsHide: true, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
        error ? reject(error) : resolve(String(stdout)),
      );
  });
}
