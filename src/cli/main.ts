import { closestName } from '../errors/index.js';
import type { Command } from './cli-io.js';
import { loadCommand } from './commands/index.js';

/**
 * The `connector-auth` command. Deliberately thin: parse the command name and global flags, import
 * only that command's module, run it, map what it throws to an exit code. `--help` imports nothing
 * beyond this file, so it starts in about the time Node itself takes.
 */

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ default: Command }> }> = {
  init: {
    summary: 'init [dir] [--template NAME]        scaffold a connector project (default: the current directory)',
    load: loadCommand.init,
  },
  debug: {
    summary:
      'debug [project] [--configuration F] [--state F]   authenticate, probe, run update() into files/warehouse.db',
    load: loadCommand.debug,
  },
  probe: {
    summary: 'probe [project] [--configuration F]  authenticate and probe only',
    load: loadCommand.probe,
  },
  authorize: {
    summary: 'authorize [project] [--configuration F]   sign in with a browser; saves the refresh token',
    load: loadCommand.authorize,
  },
  validate: {
    summary: 'validate [project] [--configuration F]   check the configuration; no network',
    load: loadCommand.validate,
  },
  doctor: {
    summary: 'doctor [project] [--configuration F]   lint credential hygiene: git, file modes, secrets in files',
    load: loadCommand.doctor,
  },
  reset: {
    summary: 'reset [project] [--yes|--force]      delete files/warehouse.db and files/state.json',
    load: loadCommand.reset,
  },
  airbyte: {
    summary: 'airbyte spec|check|discover|read [project] --config F [--catalog F] [--state F]   the Airbyte protocol',
    load: loadCommand.airbyte,
  },
  pipeline: {
    summary: 'pipeline groups|connectors <group_id>|upgrade <id>   pipeline management interface',
    load: loadCommand.pipeline,
  },
  webhooks: {
    summary: 'webhooks list|get <id>|delete <id>   sync webhook interface',
    load: loadCommand.webhooks,
  },
  serve: {
    summary: 'serve [project] [--port N] [--host H]   a Fivetran partner SDK gRPC server of the connector',
    load: loadCommand.serve,
  },
  emulator: {
    summary: 'emulator [--port N] [--data FILE]   serve both interfaces locally',
    load: loadCommand.emulator,
  },
  version: {
    summary: 'version                              print the version (also --version)',
    load: loadCommand.version,
  },
};

/** `connector-auth spec` is `connector-auth airbyte spec`, and so on (see main). */
const AIRBYTE_ALIASES = new Set(['spec', 'check', 'discover', 'read']);

const GLOBAL_HELP = `connector-auth — authenticate custom data connectors, probe their sources, run them locally

Usage: connector-auth <command> [options]

Commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.summary}`)
  .join('\n')}
  spec|check|discover|read …            the same as airbyte spec|check|discover|read (the image's entrypoint)

Global options:
  --json       machine-readable output: results as JSON on stdout, logs as JSON lines on stderr
  --verbose    debug-level logs and stack traces
  -h, --help   this help (or: connector-auth <command> --help)
  --version    print the version

Exit codes: 0 ok · 1 connector code failed · 2 configuration invalid · 3 credentials rejected
            4 source unreachable · 5 source identity not trusted (TLS / SSH host key)
`;

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose');
  const args = argv.filter((a) => a !== '--json' && a !== '--verbose');
  const [name, ...rest] = args;

  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(GLOBAL_HELP);
    return name === undefined ? 2 : 0;
  }
  const commandName = name === '--version' || name === '-v' ? 'version' : name;
  // Airbyte runs an image as `ENTRYPOINT <command> <flags>` and its acceptance tests want
  // AIRBYTE_ENTRYPOINT to be that ENTRYPOINT; the image's ENTRYPOINT is `connector-auth` (its default
  // command is Fivetran's `serve`), so Airbyte's four commands are taken at the top level too.
  if (AIRBYTE_ALIASES.has(commandName)) return main(['airbyte', ...argv]);
  const entry = Object.hasOwn(COMMANDS, commandName) ? COMMANDS[commandName] : undefined;
  if (!entry) {
    const near = closestName(name, Object.keys(COMMANDS));
    // One line when the command meant is plain; the whole help when it is not.
    process.stderr.write(
      near
        ? `error [invalid_arguments]: unknown command '${name}'; did you mean '${near}'? — see connector-auth --help\n`
        : `error [invalid_arguments]: unknown command '${name}'\n\n${GLOBAL_HELP}`,
    );
    return 2;
  }

  // From here on every byte printed passes the redactor, whatever prints it.
  const [{ installRedactingOutput }, { createCliIO }, { printError }] = await Promise.all([
    import('../log/index.js'),
    import('./cli-io.js'),
    import('./print-error.js'),
  ]);
  installRedactingOutput();
  const io = createCliIO({ json, verbose });
  try {
    const command = (await entry.load()).default;
    return await command.run(rest, io);
  } catch (error) {
    return printError(error, io);
  }
}
