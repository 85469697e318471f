import type { ParseArgsConfig } from 'node:util';
import { readConfigurationFile } from '../config/index.js';
import { checkConfigurationKeys } from '../connector/index.js';
import type { CliIO } from './cli-io.js';
import { argumentError, parseCommandArgs } from './parse-command-args.js';

/**
 * The arguments of the commands that call one of the interfaces (`pipeline`, `webhooks`):
 * `<action> [identifier]`, the credential flags they share (`--configuration FILE`, `--base-url
 * URL`) and their own, parsed by parseCommandArgs so a wrong flag is exit 2 as everywhere. Each
 * action takes no identifier or exactly one; anything else is exit 2 naming the action.
 */

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed flags, as parseArgs gives them for options that are not `multiple`. */
type Values<O extends Options> = { [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : string };

/** What the two commands share: where the credentials are, and --help. */
const SHARED_OPTIONS = {
  configuration: { type: 'string' },
  'base-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface InterfaceCommand<O extends Options> {
  /** The command's name: `pipeline`, `webhooks`. */
  name: string;
  /** Each action, and whether it takes an identifier. */
  actions: Record<string, { identifier: boolean }>;
  /** What an identifier is, for the message that asks for one ("identifier", "webhook id"). */
  identifier: string;
  /** The command's own flags, beside the shared ones. */
  options: O;
}

/**
 * The action, its identifier and the flags; or `help`, the exit code after the usage is printed
 * (0 for --help, 2 when no action was given).
 */
export function parseInterfaceArgs<O extends Options>(command: InterfaceCommand<O>, args: string[]) {
  const parsed = parseCommandArgs(command.name, {
    args,
    allowPositionals: true,
    options: { ...SHARED_OPTIONS, ...command.options },
  });
  // parseArgs's result type is not computed for options a caller supplies: it is stated here.
  const values = parsed.values as Values<typeof SHARED_OPTIONS & O>;
  const positionals = parsed.positionals;
  if (values.help || positionals.length === 0) return { help: values.help ? 0 : 2 } as const;
  const [action = '', id, ...extra] = positionals;
  const names = Object.keys(command.actions);
  const spec = Object.hasOwn(command.actions, action) ? command.actions[action] : undefined;
  if (!spec)
    throw argumentError(
      command.name,
      `unknown ${command.name} action '${action}'; use ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`,
    );
  if (spec.identifier ? id === undefined || extra.length > 0 : id !== undefined)
    throw argumentError(
      command.name,
      spec.identifier
        ? `${command.name} ${action} takes exactly one ${command.identifier}`
        : `${command.name} ${action} takes no identifier`,
    );
  return { help: undefined, action, id, values } as const;
}

/**
 * The `--configuration` file's keys ({} without one), a misspelt key (`webhook_tokn`) named as in
 * every command that reads one.
 */
export async function interfaceConfiguration(
  values: { configuration?: string | undefined },
  io: CliIO,
): Promise<Record<string, string>> {
  if (!values.configuration) return {};
  const file = await readConfigurationFile(values.configuration);
  checkConfigurationKeys(Object.keys(file), undefined, io.log);
  return file;
}
