import { describe, expect, it } from 'vitest';
// internals: the command itself (cli/ is the entry point and has no door)
import command from '../../src/cli/commands/interfaces/emulator.js';
import { parseEmulatorData } from '../../src/emulator/index.js';
import { captureIO, failure, raw } from './support.js';
import { until } from '../helpers/source-session.js';

/** `connector-auth emulator`: prints where it listens and the demo credentials, serves, stops on a signal. */

describe('connector-auth emulator', () => {
  it('serves until SIGTERM, then stops and returns 0', async () => {
    const io = captureIO(true);
    const running = command.run(['--port', '0'], io);
    await until(() => io.stdout.length > 0);
    const summary = JSON.parse(io.stdout[0]!);
    expect(summary).toMatchObject({ ok: true, groups: 6, connectors: 250 });
    expect(summary.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const emu = {
      url: summary.url,
      credentials: { apiKey: summary.credentials.api_key, apiSecret: summary.credentials.api_secret },
    };
    expect((await raw(emu as never, '/v1/groups')).status).toBe(200);

    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(0);
    expect(io.stderr.join('\n')).toContain('emulator stopped (SIGTERM)');
    await expect(fetch(`${summary.url}/v1/groups`)).rejects.toThrow();
  });

  it('prints the URLs and the demo credentials for people', async () => {
    const io = captureIO(false);
    const running = command.run([], io);
    while (io.stdout.length === 0) await new Promise((r) => setTimeout(r, 20));
    const text = io.stdout.join('\n');
    expect(text).toMatch(/emulator listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain('username=demo_api_key');
    expect(text).toContain('token=demo-webhook-token-8b2d47');
    process.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(0);
  });

  it('--print-data writes the built-in data set in the --data format', async () => {
    const io = captureIO(false);
    expect(await command.run(['--print-data'], io)).toBe(0);
    expect(parseEmulatorData(JSON.parse(io.stdout.join('\n'))).connectors).toHaveLength(250);
  });

  it('a bad port or an unknown option is a usage error (exit 2)', async () => {
    for (const args of [['--port', 'abc'], ['--port', '70000'], ['--nope']]) {
      const error = await failure(command.run(args, captureIO()));
      expect(error.exitCode, args.join(' ')).toBe(2);
    }
  });
});
