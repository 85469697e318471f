import { constants } from 'node:os';

/**
 * `connector-auth-image`, the entrypoint of the image `init`'s Dockerfile builds: one image that
 * both platforms run as they run their own connectors.
 *
 * - Airbyte runs `IMAGE spec`, `IMAGE check --config F`, `IMAGE discover --config F`,
 *   `IMAGE read --config F --catalog F [--state F]`: those go to `connector-auth airbyte <command> <project> …`.
 * - With no arguments (the Fivetran partner SDK starts the image so), `connector-auth serve <project>
 *   --port 50051 --host ::`: IPv4 and IPv6 on one socket, as the partner SDK asks.
 * - Anything else is a `connector-auth` command line, unchanged.
 *
 * The project is `$CONNECTOR_AUTH_PROJECT` (the image sets it), else the working directory.
 */

const AIRBYTE_COMMANDS = new Set(['spec', 'check', 'discover', 'read']);

export function imageArguments(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const project = env.CONNECTOR_AUTH_PROJECT || '.';
  const [first, ...rest] = argv;
  if (first === undefined) return ['serve', project, '--port', '50051', '--host', '::'];
  if (AIRBYTE_COMMANDS.has(first)) return ['airbyte', first, project, ...rest];
  return [...argv];
}

/**
 * In a container the command is PID 1, and the kernel gives PID 1 no default action for a signal:
 * SIGTERM (`docker stop`, a pod deleted) is ignored unless a handler exists, and the process is
 * killed only when the engine's grace period ends. A command with handlers of its own (serve:
 * no new calls, running Updates end at their next checkpoint) keeps them; for every other one,
 * SIGTERM and SIGINT end the process as the default action would anywhere else, exit 128 + signal.
 */
export function keepDefaultStopSignals(): void {
  for (const name of ['SIGTERM', 'SIGINT'] as const) {
    const fallback = () => {
      if (process.listenerCount(name) === 1) process.exit(128 + constants.signals[name]);
    };
    process.on(name, fallback);
  }
}
