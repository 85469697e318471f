import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` installs from the lock alone, on the user's platform. npm drops the entries of optional
 * dependencies for other platforms when it updates a lock in place (DuckDB's native bindings for
 * macOS, Windows, arm64 and musl), after which `npm ci` fails everywhere. Every optional dependency
 * that a locked package names must have its own entry.
 */
describe('package-lock.json', () => {
  it('holds an entry for every optional dependency of every locked package (all platforms)', async () => {
    const lock = JSON.parse(
      await readFile(fileURLToPath(new URL('../../package-lock.json', import.meta.url)), 'utf8'),
    ) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        // Resolved like Node: next to the package that needs it, else in a node_modules above it.
        const candidates = [`${path ? `${path}/` : ''}node_modules/${name}`, `node_modules/${name}`];
        if (!candidates.some((candidate) => candidate in lock.packages)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing, 'regenerate the lock from scratch: rm -rf node_modules package-lock.json && npm install').toEqual(
      [],
    );
    expect(
      Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/@duckdb/node-bindings-')).length,
    ).toBe(8);
  });
});
