import { createLogger, type Logger } from '../log/index.js';

/**
 * What a command gets from the CLI: where results go (stdout), where logs go (stderr), and whether
 * the caller asked for JSON. Commands return an exit code; errors they throw are printed by main.
 */
export interface CliIO {
  /** Results: a table for people, one JSON document with --json. */
  out(text: string): void;
  /** Human notes that are not log lines (prompts). */
  err(text: string): void;
  /**
   * A status line for long work ("listing… 12,000 connectors"), rewritten in place on stderr; `undefined`
   * clears it. Shown only on a terminal without --json: a script or a log file gets no carriage returns.
   */
  progress(line: string | undefined): void;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly log: Logger;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
}

export function createCliIO(options: { json: boolean; verbose: boolean }): CliIO {
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  return {
    out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    progress: stderrIsTTY && !options.json ? statusLine() : () => undefined,
    json: options.json,
    verbose: options.verbose,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY,
    log: createLogger({
      level: options.verbose ? 'debug' : 'info',
      format: options.json || !stderrIsTTY ? 'json' : 'pretty',
      color: stderrIsTTY && !process.env.NO_COLOR,
    }),
  };
}

/** Writes the line over the last one (carriage return, erase line); clears only what it drew. */
function statusLine(): (line: string | undefined) => void {
  let shown = false;
  return (line) => {
    if (line === undefined && !shown) return;
    process.stderr.write(line === undefined ? '\r\x1b[2K' : `\r\x1b[2K${line}`);
    shown = line !== undefined;
  };
}

/** A command: `connector-auth <name> …args`. */
export interface Command {
  run(args: string[], io: CliIO): Promise<number>;
}
