import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCliIO } from '../../src/cli/cli-io.js';

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
