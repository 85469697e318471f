import { parseArgs } from 'node:util';
import {
  AIRBYTE_COMMANDS,
  reportAirbyteFailure,
  runAirbyte,
  type AirbyteCommand,
} from '../../../hosts/airbyte/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { argumentError, parseCommandArgs } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth airbyte <spec|check|discover|read> [project] --config FILE [--catalog FILE] [--state FILE]

The project as an Airbyte source: every line on standard output is one Airbyte protocol message.
  spec                      SPEC: the connection specification (JSON Schema) from the connector's keys
  check    --config F       CONNECTION_STATUS: authenticate and probe, as debug does (a failed check exits 0)
  discover --config F       CATALOG: one stream per table of the connector's schema()
  read     --config F --catalog F [--state F]
                            RECORD and STATE messages; a failure is a TRACE error and a non-zero exit
  project                   default: $CONNECTOR_AUTH_PROJECT, then the current directory
A rotated refresh token is sent as a CONTROL message (CONNECTOR_CONFIG) before it is used.
See docs/hosts/airbyte.md.`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    if (args.includes('-h') || args.includes('--help')) return (io.out(HELP), 0);
    // From here on standard output carries protocol messages only: a wrong argument is a TRACE too.
    let parsed:
      { command: AirbyteCommand; project: string; config?: string; catalog?: string; state?: string } | undefined;
    let problem: unknown;
    try {
      const { values, positionals } = parseCommandArgs('airbyte', () =>
        parseArgs({
          args,
          allowPositionals: true,
          options: { config: { type: 'string' }, catalog: { type: 'string' }, state: { type: 'string' } },
        }),
      );
      const [name, project, extra] = positionals;
      if (!AIRBYTE_COMMANDS.includes(name as AirbyteCommand))
        throw argumentError('airbyte', `unknown airbyte command '${name ?? ''}'; use spec, check, discover or read`);
      if (extra !== undefined) throw argumentError('airbyte', `unexpected argument '${extra}'`);
      parsed = {
        command: name as AirbyteCommand,
        project: project ?? process.env.CONNECTOR_AUTH_PROJECT ?? '.',
        ...(values.config ? { config: values.config } : {}),
        ...(values.catalog ? { catalog: values.catalog } : {}),
        ...(values.state ? { state: values.state } : {}),
      };
    } catch (error) {
      problem = error;
    }
    if (!parsed) return reportAirbyteFailure(problem, { verbose: io.verbose });
    return runAirbyte({
      command: parsed.command,
      project: parsed.project,
      verbose: io.verbose,
      ...(parsed.config ? { configPath: parsed.config } : {}),
      ...(parsed.catalog ? { catalogPath: parsed.catalog } : {}),
      ...(parsed.state ? { statePath: parsed.state } : {}),
    });
  },
};
export default command;
