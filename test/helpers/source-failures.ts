import { describe, expect, it } from 'vitest';
import type { Failure } from './rejection.js';
import { probeFailure } from './source-session.js';

/**
 * What the ftp and mysql tests share beyond the conformance suite: the warnings a session logged,
 * and a table of a source's own failures (its TLS choices, its paths), each probed and checked for
 * its exit code, error code and key, and for no secret anywhere.
 */

/** The messages of the WARNING lines a recording logger (source-session.ts) kept. */
export function warningsIn(lines: string[]): string[] {
  return lines
    .map((l) => JSON.parse(l) as { level: string; message: string })
    .filter((l) => l.level === 'WARNING')
    .map((l) => l.message);
}

export interface OwnFailure {
  name: string;
  config: () => Record<string, string>;
  exitCode: number;
  code: string;
  key: string;
}

/** One test per row: the probe fails with the row's exit code, code and key; `expectClean` checks the rest. */
export function ownFailures(
  source: string,
  rows: OwnFailure[],
  expectClean: (error: Failure, lines: string[]) => void,
): void {
  describe(`${source} source, its own failures: one line naming the key, no secret anywhere`, () => {
    for (const row of rows) {
      it(row.name, async () => {
        const { error, lines } = await probeFailure(row.config(), source);
        expect({ exitCode: error.exitCode, code: error.code, key: error.key }, error.message).toEqual({
          exitCode: row.exitCode,
          code: row.code,
          key: row.key,
        });
        expectClean(error, lines);
      });
    }
  });
}
