import { parseArgs } from 'node:util';
import { ExitCode } from '../../../errors/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { argumentError, parseCommandArgs, portOption } from '../../parse-command-args.js';
import { stopSignal } from '../../stop-signal.js';

const HELP = `Usage: connector-auth serve [project] [--port N] [--host H] [--grace-seconds S]

Serves <project>/connector.ts as a Fivetran partner SDK source connector: a gRPC server of
fivetran_sdk.v2.SourceConnector (ConfigurationForm, Test, Schema, Update). Fivetran sends the
configuration with every call; nothing is read from configuration.json and nothing is written
under files/. Logs are JSON lines on stdout ({"level","message","message-origin"}), redacted.
  --port N            default 50051 (0: a free port, printed in the "listening on" line)
  --host H            default :: and 0.0.0.0, every IPv6 and IPv4 address (IPv4 only where the host has no
                      IPv6); plaintext gRPC: keep it inside the pod or host
  --grace-seconds S   after SIGTERM, how long running calls get to reach a checkpoint (default 25)
SIGTERM or SIGINT: no new calls, running Updates end at their next checkpoint, exit 0.
See docs/hosts/fivetran.md.`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('serve', () =>
      parseArgs({
        args,
        allowPositionals: true,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          'grace-seconds': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      }),
    );
    if (values.help) return (io.out(HELP), 0);
    if (positionals.length > 1)
      throw argumentError('serve', `one project directory at most, not ${positionals.length}`);
    const port = portOption('serve', values.port, 50051);
    const grace = values['grace-seconds'] === undefined ? 25 : Number(values['grace-seconds']);
    if (!Number.isFinite(grace) || grace < 0 || grace > 3600)
      throw argumentError('serve', '--grace-seconds must be a number of seconds from 0 to 3600');

    // Listening for the signals before the server says it listens: a platform may stop it at once.
    const stopped = stopSignal();
    const { serve } = await import('../../../hosts/fivetran/index.js');
    const starting = serve({
      project: positionals[0] ?? '.',
      port,
      ...(values.host === undefined ? {} : { host: values.host }),
      verbose: io.verbose,
      graceSeconds: grace,
    });
    // Stopped while it starts (loading the connector, say): nothing is served yet, so nothing waits.
    const early = await Promise.race([starting.then(() => undefined), stopped]);
    if (early !== undefined) return exitAtOnce(early);
    const server = await starting;
    const signal = await stopped;
    server.log.info(`${signal} received`);
    await server.stop();
    // A connector still waiting on its source after the grace period must not keep the process up.
    setTimeout(() => process.exit(0), 1000).unref();
    return 0;
  },
};
/** The exit status of a process ended by `signal`, as a shell reports it; the process ends now. */
function exitAtOnce(signal: NodeJS.Signals): never {
  process.exit(signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated);
}

export default command;
