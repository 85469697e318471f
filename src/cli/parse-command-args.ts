import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigurationError, closestName } from '../errors/index.js';

/**
 * Runs a command's argument parsing. A wrong flag or a missing flag value is bad input (exit 2,
 * pointing to the command's --help), never a connector failure (exit 1), whichever command it
 * reaches. Node's parser words its errors for programmers ("Unknown option '--x'. To specify a
 * positional argument starting with a '-', place it …", with a quote it never closes): they are
 * said again here in one line, with the option most likely meant when the command's options are known.
 *
 * Given the parseArgs configuration, the options are known; given a function that parses (the
 * older form, kept for commands written that way), the message is cleaned without a suggestion.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>>;
export function parseCommandArgs<R>(command: string, parse: () => R): R;
export function parseCommandArgs(command: string, configOrParse: ParseArgsConfig | (() => unknown)): unknown {
  const config = typeof configOrParse === 'function' ? undefined : configOrParse;
  try {
    return typeof configOrParse === 'function' ? configOrParse() : parseArgs(configOrParse);
  } catch (error) {
    throw argumentError(command, restate(command, error, config));
  }
}

/** Bad input to a command (a wrong action, a missing identifier): exit 2, pointing to its --help. */
export function argumentError(command: string, message: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'invalid_arguments', hint: `see connector-auth ${command} --help` });
}

/** `--port`: a port number from 0 to 65535 (digits only), or `fallback` when it is not given. */
export function portOption(command: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) return Number(value);
  throw argumentError(command, '--port must be a port number from 0 to 65535');
}

/** The options of the commands that act on a project (`[project] [--configuration FILE]`). */
export const PROJECT_OPTIONS = { configuration: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

/** Where the project and its configuration are, from a project command's parsed arguments. */
export function projectLocation(
  positionals: string[],
  values: { configuration?: string | undefined },
): { project: string; configurationPath?: string } {
  return {
    project: positionals[0] ?? '.',
    ...(values.configuration ? { configurationPath: values.configuration } : {}),
  };
}

/** Flags main() takes before any command sees the arguments: a typo of one is suggested too. */
const GLOBAL_FLAGS = ['--json', '--verbose', '--help'];

function restate(command: string, error: unknown, config: ParseArgsConfig | undefined): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  // The option or argument as typed is the one quoted first in Node's message.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flags = config ? [...flagsOf(config), ...GLOBAL_FLAGS] : [];
    const typed = quoted.split('=')[0]!;
    const near = typed.startsWith('--') ? closestName(typed, flags) : undefined;
    return `unknown option '${typed}' for connector-auth ${command}${near ? `; did you mean '${near}'?` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /^(-{1,2}[\w-]+)/.exec(quoted)?.[1] ?? quoted;
    return /argument missing/.test(message) ? `option '${option}' needs a value` : `option '${option}' takes no value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument '${quoted}': connector-auth ${command} takes none`;
  return message;
}

function flagsOf(config: ParseArgsConfig): string[] {
  return Object.entries(config.options ?? {}).flatMap(([name, option]) => [
    `--${name}`,
    ...(config.allowNegative && option.type === 'boolean' ? [`--no-${name}`] : []),
  ]);
}
