/**
 * Module resolve hook for connector projects (registered with `module.register`; runs in Node's
 * loader thread, in front of tsx's). Two jobs:
 *
 * 1. `import … from 'connector-auth'` (and its subpaths) resolves to the package that runs the
 *    project, even when the project has no node_modules — and so the connector and the runner share
 *    one secret registry. The map (specifier → file URL, from our package.json `exports`) is built in
 *    the main thread and handed over by `initialize`: the loader thread has no import.meta.resolve on
 *    Node 20.
 * 2. A connector's `.ts` files are ES modules. tsx would follow the nearest package.json and, for a
 *    project without one, load them as CommonJS, which breaks top-level `import`/`export` with
 *    `require()` cycles; connector projects need no package.json, so the format is set here.
 */
interface ResolveContext {
  conditions: string[];
  parentURL?: string;
}
interface Resolved {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<Resolved>;

let self: Record<string, string> = {};

export function initialize(data: { self: Record<string, string> }): void {
  self = data.self;
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<Resolved> {
  const own = self[specifier];
  if (own) return { url: own, shortCircuit: true };
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.startsWith('file:') && /\.m?ts$/.test(new URL(resolved.url).pathname) && !resolved.url.includes('/node_modules/')) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}
