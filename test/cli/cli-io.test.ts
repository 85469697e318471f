import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// internals: cli/ is the entry point and has no door
import { createCliIO } from '../../src/cli/cli-io.js';
import { BIN, cli } from '../helpers/cli.js';

/** The progress line is for people at a terminal: a script, a log file or --json gets no carriage returns. */
describe('CliIO.progress', () => {
  const wasTTY = process.stderr.isTTY;
  afterEach(() => {
    process.stderr.isTTY = wasTTY;
    vi.restoreAllMocks();
  });

  function written(json: boolean, tty: boolean, lines: Array<string | undefined>): string {
    process.stderr.isTTY = tty;
    const io = createCliIO({ json, verbose: false });
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    for (const line of lines) io.progress(line);
    const text = write.mock.calls.map((call) => String(call[0])).join('');
    write.mockRestore();
    return text;
  }

  it('on a terminal: each line is drawn over the last, and clearing erases it', () => {
    expect(written(false, true, ['  listing… 100 connectors', '  listing… 200 connectors', undefined])).toBe(
      '\r\x1b[2K  listing… 100 connectors\r\x1b[2K  listing… 200 connectors\r\x1b[2K',
    );
  });

  it('clearing when nothing was drawn writes nothing (a fast command leaves the terminal alone)', () => {
    expect(written(false, true, [undefined])).toBe('');
  });

  it('not a terminal, or --json: nothing at all', () => {
    expect(written(false, false, ['  listing… 100 connectors', undefined])).toBe('');
    expect(written(true, true, ['  listing… 100 connectors', undefined])).toBe('');
  });
});

/**
 * Log lines are for people on a terminal and for programs elsewhere: `debug` on a pseudo-terminal
 * (util-linux's `script`) prints pretty lines, the same run with stderr on a pipe prints JSON lines.
 */
describe('the log format debug chooses', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'connector-auth-tty-'));
    await writeFile(
      join(dir, 'connector.ts'),
      "import { defineConnector } from 'connector-auth';\nexport default defineConnector({ source: 'rest', update() {} });\n",
    );
    // An unknown key is a warning line, logged before the closed port fails the probe.
    await writeFile(
      join(dir, 'configuration.json'),
      JSON.stringify({
        auth_method: 'bearer',
        token: 'tok_tty_check_51e0a7',
        base_url: 'http://127.0.0.1:1',
        probe_path: 'health',
        some_unread_key: 'x',
      }),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.skipIf(!hasScript)('on a terminal: pretty lines, no JSON', () => {
    const command = [process.execPath, BIN, 'debug', dir].map((part) => `'${part}'`).join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(run.status, run.stdout).toBe(4);
    expect(run.stdout).toMatch(/^\d\d:\d\d:\d\d WARNING +configuration key 'some_unread_key' is not read/m);
    expect(run.stdout).not.toContain('"level"');
  });

  it('on a pipe: JSON lines', async () => {
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(4);
    const warning = run.stderr.split('\n').find((line) => line.includes('some_unread_key'));
    expect(JSON.parse(warning!)).toMatchObject({ level: 'WARNING' });
  });
});
