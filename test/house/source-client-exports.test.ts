import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A built-in source's client type, which `SourceClients` names for update(), is exported by the
 * package too (src/index.ts): a connector author who types a helper of theirs with it imports it from
 * 'connector-auth'. docs/recipes/adding-a-source.md asks for both; this makes the second one fail
 * when left out, as the type-check does for the first.
 */

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

/** The client types `SourceClients` names: each member's type, its last identifier (`import('…').X` is X). */
export function clientTypes(defineConnector: string): string[] {
  const body = /export interface SourceClients \{([^}]*)\}/.exec(defineConnector)?.[1] ?? '';
  return [...body.matchAll(/:\s*([^;]+);/g)].map((match) => /(\w+)\s*$/.exec(match[1]!)![1]!);
}

/** The names src/index.ts exports, values and types. */
export function exportedNames(index: string): Set<string> {
  const lists = [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].map((match) => match[1]!);
  return new Set(
    lists.flatMap((list) =>
      list.split(',').map((name) =>
        name
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()!,
      ),
    ),
  );
}

describe("the package exports each built-in source's client type", () => {
  const types = clientTypes(read('src/connector/definition/define-connector.ts'));

  it('reads the client types, inline imports too', () => {
    expect(types).toEqual(expect.arrayContaining(['RestSource', 'PostgresSource', 'FtpSource']));
    expect(clientTypes("export interface SourceClients {\n  x: import('../../sources/index.js').XSource;\n}")).toEqual([
      'XSource',
    ]);
  });

  it('src/index.ts exports every one', () => {
    const exported = exportedNames(read('src/index.ts'));
    expect(types.filter((type) => !exported.has(type))).toEqual([]);
  });
});
