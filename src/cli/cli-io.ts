import { createLogger, type Logger } from '../log/index.js';

/**
 * What a command gets from the CLI: where results go (stdout), where logs go (stderr), and whether
 * the caller asked for JSON. Commands return an exit code; errors they throw are printed by main.
 */
export interface CliIO {
  /** Results: a table for people, one JSON document with --json. */
  out(text: string): void;
  /** Human notes that are not log lines (progress, prompts). */
  err(text: string): void;
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

/** A command: `connector-auth <name> …args`. */
export interface Command {
  run(args: string[], io: CliIO): Promise<number>;
}
