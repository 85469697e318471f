/**
 * The module hooks a connector project is loaded through. Three jobs:
 *
 * 1. `import … from 'connector-auth'` (and its subpaths) resolves to the package that runs the
 *    project, even when the project has no node_modules — and so the connector and the runner share
 *    one secret registry. The map (specifier → file URL, from our package.json `exports`) comes from
 *    the main thread through `initialize`.
 * 2. A project's `.ts`, `.mts` and `.tsx` files are ES modules compiled to JavaScript
 *    (typescript-transform.ts, cached by content hash); node_modules are left to Node.
 * 3. As TypeScript (and tsx, which loaded connectors before) resolve them, `./util.js` from a
 *    TypeScript file finds `./util.ts` when there is no `util.js`, and `./util` finds `util.ts`.
 *
 * Two forms: `resolve`/`load` are the asynchronous hooks of `module.register()`, which on Node 20
 * run in a loader thread of their own; `resolveSync`/`loadSync` are for `module.registerHooks()`
 * (Node 22.15+, 23.5+), which runs them in the main thread without the loader thread's start-up and
 * its round trip per module.
 */
import { existsSync } from 'node:fs';
import { transformFile, transformFileSync } from './typescript-transform.js';

interface ResolveContext {
  conditions: string[];
  parentURL?: string;
}
interface Resolved {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
interface Loaded {
  format: string;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}
type NextResolve<R> = (specifier: string, context: ResolveContext) => R;
type NextLoad<R> = (url: string, context: { format?: string | null; conditions: string[] }) => R;

export interface HookData {
  /** `connector-auth[/subpath]` → the file URL it names */
  self: Record<string, string>;
  /** where compiled files are cached (the main thread's choice: its environment decides) */
  cacheDirectory: string;
}

let data: HookData = { self: {}, cacheDirectory: '' };

export function initialize(given: HookData): void {
  data = given;
}

const TYPESCRIPT = /\.(?:m?ts|tsx)$/;

/** A TypeScript file of the project (not of a package in node_modules). */
function isProjectTypeScript(url: string): boolean {
  return url.startsWith('file:') && TYPESCRIPT.test(new URL(url).pathname) && !url.includes('/node_modules/');
}

/** Where a relative specifier from a TypeScript file points when its `.js` file does not exist. */
function typeScriptAlternative(specifier: string, parentURL: string | undefined): string | undefined {
  if (!parentURL || !isProjectTypeScript(parentURL) || !/^\.\.?\//.test(specifier)) return undefined;
  const candidates = /\.m?jsx?$/.test(specifier)
    ? [
        specifier
          .replace(/\.js$/, '.ts')
          .replace(/\.mjs$/, '.mts')
          .replace(/\.jsx$/, '.tsx'),
      ]
    : [`${specifier}.ts`, `${specifier}/index.ts`];
  return candidates.find((candidate) => existsSync(new URL(candidate, parentURL)));
}

function withFormat(resolved: Resolved): Resolved {
  return isProjectTypeScript(resolved.url) ? { ...resolved, format: 'module' } : resolved;
}

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve<Promise<Resolved>>,
): Promise<Resolved> {
  const own = data.self[specifier];
  if (own) return { url: own, shortCircuit: true };
  try {
    return withFormat(await nextResolve(specifier, context));
  } catch (error) {
    const alternative = typeScriptAlternative(specifier, context.parentURL);
    if (alternative === undefined) throw error;
    return withFormat(await nextResolve(alternative, context));
  }
}

export async function load(
  url: string,
  context: { format?: string | null; conditions: string[] },
  nextLoad: NextLoad<Promise<Loaded>>,
): Promise<Loaded> {
  if (!isProjectTypeScript(url)) return nextLoad(url, context);
  return { format: 'module', source: await transformFile(url, data.cacheDirectory), shortCircuit: true };
}

export function resolveSync(specifier: string, context: ResolveContext, nextResolve: NextResolve<Resolved>): Resolved {
  const own = data.self[specifier];
  if (own) return { url: own, shortCircuit: true };
  try {
    return withFormat(nextResolve(specifier, context));
  } catch (error) {
    const alternative = typeScriptAlternative(specifier, context.parentURL);
    if (alternative === undefined) throw error;
    return withFormat(nextResolve(alternative, context));
  }
}

export function loadSync(
  url: string,
  context: { format?: string | null; conditions: string[] },
  nextLoad: NextLoad<Loaded>,
): Loaded {
  if (!isProjectTypeScript(url)) return nextLoad(url, context);
  return { format: 'module', source: transformFileSync(url, data.cacheDirectory), shortCircuit: true };
}
