import { ConfigurationError } from '../errors/index.js';

/**
 * Runs a command's `parseArgs` call. A wrong flag or a missing flag value is bad input (exit 2,
 * pointing to the command's --help), never a connector failure (exit 1), whichever command it
 * reaches. The call is passed in whole so each command's option types flow to its caller.
 */
export function parseCommandArgs<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw argumentError(command, error instanceof Error ? error.message : String(error));
  }
}

/** Bad input to a command (a wrong action, a missing identifier): exit 2, pointing to its --help. */
export function argumentError(command: string, message: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'invalid_arguments', hint: `see connector-auth ${command} --help` });
}

/** The options of the commands that act on a project (`[project] [--configuration FILE]`). */
export const PROJECT_OPTIONS = { configuration: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

/** Where the project and its configuration are, from a project command's parsed arguments. */
export function projectLocation(positionals: string[], values: { configuration?: string | undefined }): { project: string; configurationPath?: string } {
  return { project: positionals[0] ?? '.', ...(values.configuration ? { configurationPath: values.configuration } : {}) };
}
