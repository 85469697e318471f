import { ConfigurationError } from './connector-auth-error.js';

/**
 * Loading a package the connector project installs, or not, as its configuration needs: a source's
 * driver or an AWS SDK package (optional peers of connector-auth), DuckDB (a devDependency of the
 * project, for `debug`): docs/decisions.md, "Optional peers". Its production image then holds no
 * other. A package the configuration needs and the project lacks is a configuration problem with
 * one fix, not a stack trace: exit 2, `dependency_missing`, naming the package and what needs it.
 *
 * The caller passes its own `import()` (or `require()`), so the bundler keeps the package external
 * and TypeScript keeps its types; this only reads the failure.
 */

/** `neededBy` says what asked, in the words of the configuration: "source 'postgres'", "`debug`". */
export async function importOptionalPackage<T>(name: string, neededBy: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw missingPackageError(error, name, neededBy) ?? error;
  }
}

/** The same for a package loaded with `require()` (DuckDB's Node API). */
export function requireOptionalPackage<T>(name: string, neededBy: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw missingPackageError(error, name, neededBy) ?? error;
  }
}

/**
 * The error for `name` not being installed, or undefined when `error` is another failure: a package
 * that is there but fails to load (a broken native binding, a missing package of its own) keeps its
 * own error, which names what is wrong. Node says "Cannot find package 'pg' imported from …" to
 * `import` and "Cannot find module 'pg'" to `require`; a subpath (`mysql2/promise`) is reported by
 * the package's name.
 */
function missingPackageError(error: unknown, name: string, neededBy: string): ConfigurationError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  if (typeof message !== 'string' || !(message.includes(`'${name}'`) || message.includes(`'${name}/`))) {
    return undefined;
  }
  return new ConfigurationError(`${neededBy} needs the npm package '${name}', which is not installed`, {
    code: 'dependency_missing',
    hint: `run \`npm install ${name}\` in the project`,
    cause: error,
  });
}
