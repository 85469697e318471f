import { chmod, cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../errors/index.js';
import { editorSupportFiles, readOwnManifest } from './editor-support.js';

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
`;

/** The Dockerfile's placeholders for the project's name and version, which the image's Airbyte labels carry. */
const NAME_PLACEHOLDER = '__PROJECT_NAME__';
const PROJECT_VERSION_PLACEHOLDER = '__PROJECT_VERSION__';
/** A project's version until its package.json names one. */
const FIRST_VERSION = '0.1.0';

/**
 * `connector-auth init [dir] --template NAME`: copies a template into a new or empty directory (the
 * current one by default, as the Python SDK's `fivetran init`), with the package.json and
 * tsconfig.json an editor needs for the package's types. An existing non-empty directory is refused,
 * so init never overwrites an author's work; a `.git` of its own does not count (`git init` first is common).
 * configuration.json is made readable by its owner only (0600) before a credential is put in it,
 * and a .gitignore keeps it out of git: `connector-auth doctor` checks both.
 */
export async function initProject(dir = '.', template = 'rest-api'): Promise<{ dir: string; files: string[] }> {
  const names = await templateNames();
  if (!names.includes(template)) {
    throw new ConfigurationError(`unknown template '${template}'; available: ${names.join(', ')}`, {
      code: 'unknown_template',
      hint: `pass --template ${names.join('|')}`,
    });
  }
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
  await cp(new URL(template, TEMPLATES_DIR), target, { recursive: true });
  // Every configuration file of the template (the local one holds demo values, but a user may put real ones in it).
  for (const name of await readdir(target))
    if (/^configuration(\..+)?\.json$/.test(name)) await chmod(join(target, name), 0o600);
  await writeFile(join(target, '.gitignore'), GITIGNORE, { flag: 'wx' });
  await writeFile(join(target, '.dockerignore'), DOCKERIGNORE, { flag: 'wx' });
  const own = await readOwnManifest();
  const files = editorSupportFiles(target, own);
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text, { flag: 'wx' });
  // One Dockerfile serves every template (templates/Dockerfile): the image runs any project the same way.
  const manifest = JSON.parse(files['package.json']!) as { name: string; version?: string };
  const dockerfile = (await readFile(new URL('Dockerfile', TEMPLATES_DIR), 'utf8'))
    .replaceAll(NAME_PLACEHOLDER, manifest.name)
    .replaceAll(PROJECT_VERSION_PLACEHOLDER, manifest.version ?? FIRST_VERSION);
  await writeFile(join(target, 'Dockerfile'), dockerfile, { flag: 'wx' });
  return { dir: target, files: (await readdir(target)).sort() };
}
