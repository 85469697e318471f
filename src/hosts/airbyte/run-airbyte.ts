import { probeConnector, probeLine } from '../../connector/index.js';
import { useKeyPlace } from '../../config/index.js';
import { ExitCode, exitCodeOf, isConnectorAuthError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { describeConfiguration, loadConnector } from '../../project/index.js';
import { secrets, type SecretRegistry } from '../../secrets/index.js';
import { airbyteStream, connectionSpecification } from './catalog/index.js';
import { airbyteLogger, failureLine, openMessageOutput, traceMessage, type MessageOutput } from './messages/index.js';
import { runRead } from './read/index.js';
import { openSession } from './session/index.js';

export const AIRBYTE_COMMANDS = ['spec', 'check', 'discover', 'read'] as const;
export type AirbyteCommand = (typeof AIRBYTE_COMMANDS)[number];

export interface AirbyteOptions {
  command: AirbyteCommand;
  project: string;
  configPath?: string;
  catalogPath?: string;
  statePath?: string;
  /** Debug-level LOG messages, and stack traces in a TRACE error. */
  verbose?: boolean;
  registry?: SecretRegistry;
  /** Where the messages go (default process.stdout, which this command then owns). */
  stream?: NodeJS.WriteStream;
}

/**
 * `connector-auth airbyte <command>`: the project speaking the Airbyte protocol. Every line on
 * standard output is one AirbyteMessage; a failure is a TRACE message of type ERROR and a non-zero
 * exit code — except a failed check, which Airbyte expects as CONNECTION_STATUS FAILED and exit 0.
 * Returns the exit code.
 */
export async function runAirbyte(options: AirbyteOptions): Promise<number> {
  const registry = options.registry ?? secrets;
  const output = openMessageOutput({ registry, ...(options.stream ? { stream: options.stream } : {}) });
  const log = airbyteLogger(output, registry, options.verbose ? 'debug' : 'info');
  // The configuration is the connection's in Airbyte: hints name its settings, not configuration.json.
  const restorePlace = useKeyPlace('connection');
  try {
    await COMMANDS[options.command]({ ...options, output, log, registry });
    return 0;
  } catch (error) {
    if (options.command === 'check' && isConnectorAuthError(error) && error.exitCode !== ExitCode.connector) {
      // The configuration or the source said no: an answer to the check, not a failure of it.
      output.send({
        type: 'CONNECTION_STATUS',
        connectionStatus: { status: 'FAILED', message: registry.redact(failureLine(error)) },
      });
      return 0;
    }
    output.send(traceMessage(error, registry, { verbose: options.verbose ?? false }));
    return exitCodeOf(error);
  } finally {
    restorePlace();
    await output.close();
  }
}

/** A failure before any command could start (a wrong argument): one TRACE message; the exit code. */
export async function reportAirbyteFailure(
  error: unknown,
  options: { verbose?: boolean; registry?: SecretRegistry; stream?: NodeJS.WriteStream } = {},
): Promise<number> {
  const registry = options.registry ?? secrets;
  const output = openMessageOutput({ registry, ...(options.stream ? { stream: options.stream } : {}) });
  output.send(traceMessage(error, registry, { verbose: options.verbose ?? false }));
  await output.close();
  return exitCodeOf(error);
}

type Context = AirbyteOptions & { output: MessageOutput; log: Logger; registry: SecretRegistry };

const COMMANDS: Record<AirbyteCommand, (context: Context) => Promise<void>> = {
  async spec({ project, output }) {
    const { connector } = await loadConnector(project);
    const description = await describeConfiguration(connector);
    output.send({
      type: 'SPEC',
      spec: {
        connectionSpecification: connectionSpecification(
          description,
          `${description.source} connector (connector-auth)`,
        ),
        supportsIncremental: true,
      },
    });
  },

  async check(context) {
    const { probe } = await probeWithSession(context);
    context.output.send({
      type: 'CONNECTION_STATUS',
      connectionStatus: { status: 'SUCCEEDED', message: context.registry.redact(probeLine(probe)) },
    });
  },

  async discover(context) {
    const { tables } = await probeWithSession(context);
    context.output.send({ type: 'CATALOG', catalog: { streams: tables.map(airbyteStream) } });
  },

  async read(context) {
    const session = await openSession(context);
    await runRead({ ...context, session });
  },
};

/** check and discover: the probe as debug runs it (it may rotate a refresh token: the session sends it). */
async function probeWithSession(context: Context) {
  const session = await openSession(context);
  return probeConnector({
    connector: session.connector,
    configuration: session.flatConfiguration,
    host: session.host,
    registry: context.registry,
  });
}
