import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../errors/index.js';

/**
 * `init --auth custom`: the rest-api template with an auth method of the project's own. The method,
 * and the two lines that offer it in connector.ts, are read from docs/auth/custom.md itself (its
 * blocks tagged with a file name), so the page and what init writes cannot differ.
 */

const GUIDE = new URL('../../docs/auth/custom.md', import.meta.url);
export const CUSTOM_AUTH_TEMPLATE = 'rest-api';
export const AUTH_SCAFFOLDS: readonly string[] = ['custom'];

/** Placeholders in place of the guide's demo values: validate and a run refuse them until they are filled in. */
const CONFIGURATION = {
  auth_method: 'api_session',
  api_login_url: 'https://api.example.com/login',
  api_user: '<YOUR_API_USER>',
  api_password: '<YOUR_API_PASSWORD>',
  base_url: 'https://api.example.com/v1',
  probe_path: 'health',
  items_path: 'items',
  timeout_seconds: '10',
};

export function checkAuthScaffold(auth: string, template: string): void {
  if (!AUTH_SCAFFOLDS.includes(auth))
    throw new ConfigurationError(`unknown --auth '${auth}'; available: ${AUTH_SCAFFOLDS.join(', ')}`, {
      code: 'unknown_auth_scaffold',
      hint: 'pass --auth custom (an auth method of your own, docs/auth/custom.md), or leave --auth out',
    });
  if (template !== CUSTOM_AUTH_TEMPLATE)
    throw new ConfigurationError(
      `--auth custom scaffolds a method for the rest source; template '${template}' is not one`,
      {
        code: 'auth_scaffold_template',
        hint: `pass --template ${CUSTOM_AUTH_TEMPLATE} (or leave --template out)`,
      },
    );
}

/** Writes session-auth.ts, offers it in connector.ts, and a configuration.json that names it. */
export async function addCustomAuthMethod(target: string): Promise<void> {
  const blocks = fileBlocks(await readFile(GUIDE, 'utf8'));
  const [method] = blocks.get('session-auth.ts') ?? [];
  const [importLine, authLine] = blocks.get('connector.ts') ?? [];
  if (!method || !importLine || !authLine) throw new Error(`${GUIDE.pathname} lost a block init copies`);
  await writeFile(join(target, 'session-auth.ts'), method, { flag: 'wx' });
  const connectorPath = join(target, 'connector.ts');
  const template = await readFile(connectorPath, 'utf8');
  const withImport = template.replace(/^(import \{ defineConnector[^\n]*\n)/m, `$1${importLine}`);
  // The template names its methods (`auth: [...]`): the page's line takes its place.
  const connector = /^ {2}auth: \[[^\n]*\n/m.test(withImport)
    ? withImport.replace(/^ {2}auth: \[[^\n]*\n/m, authLine)
    : withImport.replace(/^( {2}source: 'rest',\n)/m, `$1${authLine}`);
  await writeFile(connectorPath, connector);
  await writeFile(join(target, 'configuration.json'), `${JSON.stringify(CONFIGURATION, null, 2)}\n`);
}

/** The guide's code blocks whose info string names a file (```ts session-auth.ts), by file, in order. */
export function fileBlocks(markdown: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const match of markdown.matchAll(/^```\w+ ([\w.-]+)\n([\s\S]*?)^```$/gm)) {
    const [, file, text] = match;
    blocks.set(file!, [...(blocks.get(file!) ?? []), text!]);
  }
  return blocks;
}
