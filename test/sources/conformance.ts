import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  SourceIdentityError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../src/errors/index.js';
import { cli, exists, leakForms, readTree, type CliRun } from '../helpers/cli.js';
import { HOSTILE_SECRET, expectNoLeaks, findLeaks } from '../helpers/leak-check.js';
import type { Failure } from '../helpers/rejection.js';
import { connectSource, expectNoSecretIn, probeFailure, silentServer } from '../helpers/source-session.js';
import { freePort } from '../peers/daemon.js';

/**
 * The source conformance suite (issue 23, item 4): the scenarios every source owes its users, run
 * against the source's own real peer. A source's test file describes its peer's configurations once
 * and calls `sourceConformance(spec)`; the suite registers its tests:
 *
 * - success: the probe passes (in process), and `probe` then `debug` exit 0 through the CLI;
 * - each wrong credential: AuthenticationError, exit 3, naming the key to fix;
 * - nothing listening: SourceUnreachableError, exit 4; a server that never answers: exit 4 naming
 *   timeout_seconds, within the timeout;
 * - an untrusted TLS certificate or SSH host key: SourceIdentityError, exit 5;
 * - every failure one line with a hint, and no form of any secret in its message, hint, stack, causes,
 *   JSON or log lines; through the CLI, the leak check (HOSTILE_SECRET as the wrong credential) over
 *   stdout, stderr, files/ and the warehouse.
 *
 * Configurations are functions, called inside the tests: peers started in the file's `beforeAll` are
 * up by then. docs/testing.md shows a new source's use of it.
 */

type Configuration = Record<string, string>;

/** One way a configuration fails, and what the error must say. */
export interface FailureCase {
  /** What is wrong, as the test's name says it: "a wrong password". */
  name: string;
  /**
   * The failing configuration. `wrong` is the secret the suite chose for a case that carries one
   * (HOSTILE_SECRET): put it where the wrong password, secret or signature goes; others ignore it.
   */
  config: (wrong: string) => Configuration | Promise<Configuration>;
  /** The configuration key the error names. */
  key: string;
  /** The error's code, when the source gives one of its own. */
  code?: string;
  /** The message: the whole of it (a string), a pattern, or fragments it holds; a function when it names a peer's values. */
  message?: TextExpectation | (() => TextExpectation);
  /** Fragments the hint holds (checked in process and on the CLI's stderr). */
  hint?: string | string[] | (() => string | string[]);
}

/** What a text must be: the whole of it (a string), a pattern it matches, or fragments it holds. */
export type TextExpectation = string | RegExp | { contains: string[] };

export interface SourceConformance {
  /** The catalogue name, as a connector's `source: '<name>'` gives it. */
  source: string;
  /** A configuration whose probe passes against the peer. */
  good: () => Configuration;
  /** What the successful probe says it proved (its `outcome`). */
  outcome?: string | RegExp | (() => string | RegExp);
  /** The line `connector-auth probe` prints on success (called after the peers are up). */
  probeLine?: () => string;
  /** How many rows the connector's `debug` upserts (default: at least one). */
  upserts?: number;
  /** Each wrong credential (exit 3); the first is also run through the CLI with HOSTILE_SECRET. */
  wrongCredentials: [FailureCase, ...FailureCase[]];
  /** The configuration aimed at `port`, where nothing listens (exit 4). */
  unreachable: Omit<FailureCase, 'config' | 'name'> & { config: (port: number) => Configuration };
  /** The configuration aimed at `port`, a server that accepts and never answers (exit 4, timeout_seconds). */
  silent?: (port: number) => Configuration;
  /** Each way the server's identity is not trusted: TLS certificate, SSH host key (exit 5). */
  untrusted: [FailureCase, ...FailureCase[]];
  /** Every secret the configurations hold: passwords, tokens, signatures (each checked window by window). */
  secrets: () => string[];
  /**
   * Key material, checked line by line: a private key's PEM body lines (not its armour). Each line is
   * looked for whole, raw and base64-, URL- and JSON-encoded; windows of a hundred key lines over a
   * warehouse file would take minutes.
   */
  keyMaterial?: () => string[];
  /** The project's connector.ts: it reads something through the source and upserts at least one row. */
  connector: string;
}

export function sourceConformance(spec: SourceConformance): void {
  const secrets = () => [HOSTILE_SECRET, ...spec.secrets()];
  const keyForms = () => (spec.keyMaterial?.() ?? []).flatMap((line) => leakForms(line));

  /** One line, a hint, and no secret in any form or window anywhere the failure could carry it. */
  const expectClean = (error: Failure, lines: string[]) => {
    expectNoSecretIn(error, lines, [...secrets().flatMap((secret) => leakForms(secret)), ...keyForms()]);
    const texts: [string, string][] = [
      ['message', error.message],
      ['hint', error.hint ?? ''],
      ['stack', error.stack ?? ''],
      ['JSON', JSON.stringify(error)],
      ['log', lines.join('\n')],
    ];
    for (const secret of secrets()) expect(findLeaks(secret, texts)).toEqual([]);
  };

  const expectFailure = async (
    kind: new (...args: never[]) => ConnectorAuthError,
    exitCode: number,
    failing: Omit<FailureCase, 'name' | 'config'>,
    config: Configuration,
  ) => {
    const { error, lines } = await probeFailure(config, spec.source);
    expect(error, error.stack).toBeInstanceOf(kind);
    expect(error.exitCode).toBe(exitCode);
    expect(error.key).toBe(failing.key);
    if (failing.code !== undefined) expect(error.code).toBe(failing.code);
    const message = typeof failing.message === 'function' ? failing.message() : failing.message;
    if (message !== undefined) expectText(error.message, message);
    for (const fragment of fragments(failing.hint)) expect(error.hint).toContain(fragment);
    expectClean(error, lines);
    return error;
  };

  describe(`${spec.source} source conformance`, () => {
    it('success: the probe passes', async () => {
      const { auth } = await connectSource(spec.good(), spec.source);
      try {
        const probe = await auth.probe();
        const outcome = typeof spec.outcome === 'function' ? spec.outcome() : spec.outcome;
        if (outcome !== undefined) expectText(probe.outcome, outcome);
      } finally {
        await auth.close();
      }
    });

    for (const wrong of spec.wrongCredentials)
      it(`${wrong.name}: AuthenticationError, exit 3 naming ${wrong.key}`, async () => {
        await expectFailure(AuthenticationError, 3, wrong, await wrong.config(HOSTILE_SECRET));
      });

    it(`nothing listening: SourceUnreachableError, exit 4 naming ${spec.unreachable.key}`, async () => {
      await expectFailure(SourceUnreachableError, 4, spec.unreachable, spec.unreachable.config(await freePort()));
    });

    if (spec.silent) {
      const silentConfig = spec.silent;
      // The server never answers: only the deadline can end the probe, and the error names it. Had
      // the deadline not fired, the test's own timeout would end it as a hang.
      it('a server that never answers: exit 4 naming timeout_seconds', async () => {
        const silent = await silentServer();
        try {
          await expectFailure(SourceUnreachableError, 4, { key: 'timeout_seconds' }, silentConfig(silent.port));
        } finally {
          silent.close();
        }
      });
    }

    for (const untrusted of spec.untrusted)
      it(`${untrusted.name}: SourceIdentityError, exit 5 naming ${untrusted.key}`, async () => {
        await expectFailure(SourceIdentityError, 5, untrusted, await untrusted.config(HOSTILE_SECRET));
      });

    describe('through the CLI', () => {
      let project: string;
      beforeAll(async () => {
        project = await mkdtemp(join(tmpdir(), `connector-auth-conformance-${spec.source}-`));
        await writeFile(join(project, 'connector.ts'), spec.connector);
      });
      afterAll(async () => {
        await rm(project, { recursive: true, force: true });
      });

      const run = async (config: Configuration, command: 'probe' | 'debug', ...flags: string[]): Promise<CliRun> => {
        await writeFile(join(project, 'configuration.json'), JSON.stringify(config));
        return cli([command, project, ...flags]);
      };

      /** A failed `probe --json`: its exit code, and the error object it printed naming the key. */
      const expectCliFailure = (
        r: CliRun,
        error: string,
        exitCode: number,
        failing: Omit<FailureCase, 'name' | 'config'>,
      ) => {
        const key = failing.key;
        expect(r.code, r.stderr).toBe(exitCode);
        for (const fragment of fragments(failing.hint)) expect(r.stderr).toContain(fragment);
        const printed = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
        expect(printed).toMatchObject({ ok: false, error, exit_code: exitCode, key });
      };

      it('probe and debug pass; a wrong credential exits 3, unreachable 4, untrusted 5; no window of any secret on stdout, stderr, files/ or the warehouse', async () => {
        const probe = await run(spec.good(), 'probe');
        expect(probe.code, probe.stderr).toBe(0);
        expect(probe.stdout).toContain(spec.probeLine ? `probe OK: ${spec.probeLine()}` : 'probe OK: ');
        const debug = await run(spec.good(), 'debug');
        expect(debug.code, debug.stderr).toBe(0);
        expect(debug.stdout).toMatch(new RegExp(`Upserts\\s+\\|\\s+${spec.upserts ?? '[1-9]'}\\b`));
        expect(await exists(join(project, 'files', 'warehouse.db'))).toBe(true);

        const [wrong] = spec.wrongCredentials;
        const wrongConfig = await wrong.config(HOSTILE_SECRET);
        const wrongProbe = await run(wrongConfig, 'probe', '--json');
        expectCliFailure(wrongProbe, 'AuthenticationError', 3, wrong);
        const wrongDebug = await run(wrongConfig, 'debug');
        expect(wrongDebug.code, wrongDebug.stderr).toBe(3);

        const unreachable = await run(spec.unreachable.config(await freePort()), 'probe', '--json');
        expectCliFailure(unreachable, 'SourceUnreachableError', 4, spec.unreachable);
        const [untrusted] = spec.untrusted;
        const untrustedProbe = await run(await untrusted.config(HOSTILE_SECRET), 'probe', '--json');
        expectCliFailure(untrustedProbe, 'SourceIdentityError', 5, untrusted);

        const runs = { probe, debug, wrongProbe, wrongDebug, unreachable, untrustedProbe };
        const texts = Object.fromEntries(
          Object.entries(runs).flatMap(([name, r]) => [
            [`${name} stdout`, r.stdout],
            [`${name} stderr`, r.stderr],
          ]),
        );
        await expectNoLeaks(secrets(), {
          texts,
          files: join(project, 'files'),
          warehouse: join(project, 'files', 'warehouse.db'),
        });
        const everything = [...Object.values(texts), await readTree(join(project, 'files'))].join('\n');
        for (const form of keyForms())
          expect(everything.includes(form), `key material leaked: ${form.slice(0, 12)}…`).toBe(false);
        // Six CLI runs, each a whole process: a hang detector sized for a machine running other work too
        // (3 min was not enough at load 10-17 on two cores: the mysql run took 186 s).
      }, 600_000);
    });
  });
}

function expectText(text: string, expected: TextExpectation): void {
  if (typeof expected === 'string') expect(text).toBe(expected);
  else if (expected instanceof RegExp) expect(text).toMatch(expected);
  else for (const fragment of expected.contains) expect(text).toContain(fragment);
}

function fragments(hint: FailureCase['hint']): string[] {
  const given = typeof hint === 'function' ? hint() : hint;
  return given === undefined ? [] : typeof given === 'string' ? [given] : given;
}
