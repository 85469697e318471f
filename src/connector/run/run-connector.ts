import type { z } from 'zod';
import { ConnectorError, isConnectorAuthError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { ProbeResult, SourceDefinition } from '../../sources/index.js';
import type { AuthenticateOptions, ConfigurationInput } from '../authentication/index.js';
import {
  createOperations,
  type ConnectorDefinition,
  type Destination,
  type OperationCounts,
  type SourceClients,
  type State,
  type StateStore,
} from '../definition/index.js';
import { startRun } from './start-run.js';

export interface RunConnectorOptions {
  connector: ConnectorDefinition<keyof SourceClients | SourceDefinition, z.ZodType>;
  /** Read by the host (readConfiguration), or a map read at the start (library use). */
  configuration: ConfigurationInput;
  state: State;
  /** Opened only after the probe succeeded, so a failed run leaves nothing on disk. */
  openDestination: () => Promise<Destination & { close(): Promise<void> }>;
  /**
   * Loads the destination's code while the probe waits on the network; it must not create
   * anything on disk. A failure here is left for openDestination to report.
   */
  prepareDestination?: () => void;
  stateStore: StateStore;
  log: Logger;
  registry: SecretRegistry;
  authenticate?: Omit<AuthenticateOptions, 'source' | 'log' | 'registry' | 'connectorSecretKeys'>;
  /** Called when the probe succeeded, before update() runs. */
  onProbed?: (result: ProbeResult) => void;
  /** Receives a live view of the counts once update() starts (for a progress line). */
  onOperations?: (counts: () => OperationCounts) => void;
  /**
   * Stops the run (a host's SIGINT or SIGTERM): the probe or update() is no longer awaited, every
   * further operation is refused, a checkpoint being saved is finished, the destination is closed
   * (what was written stays) and the credential too; the run then rejects with `signal.reason`.
   */
  signal?: AbortSignal;
}

export interface RunResult {
  probe: ProbeResult;
  counts: OperationCounts;
}

/**
 * The rule of the specification (5.3, rule 3): authentication is checked with a lightweight probe
 * at the start of every sync, and a failure stops the sync before update() runs.
 */
export async function runConnector(options: RunConnectorOptions): Promise<RunResult> {
  const { connector, log, registry, signal } = options;
  const untilStopped = stopper(signal);
  const { auth, configuration } = await startRun(options);
  try {
    const probing = auth.probe();
    if (options.prepareDestination) {
      probing.catch(() => {}); // its failure is awaited below; it must not count as unhandled meanwhile
      await whileProbing(options.prepareDestination);
    }
    const probe = await untilStopped(probing);
    options.onProbed?.(probe);
    if (signal?.aborted) throw signal.reason;

    const destination = await options.openDestination();
    let operations: ReturnType<typeof createOperations> | undefined;
    try {
      if (connector.schema) await destination.declare(await connector.schema(configuration as never));
      operations = createOperations(destination, options.stateStore, registry, {
        ...(signal ? { signal } : {}),
        log: options.log,
      });
      options.onOperations?.(operations.counts);
      const { op } = operations;
      try {
        const updating = (async () =>
          connector.update({
            configuration,
            state: options.state,
            source: auth.source as never,
            op,
            log: log.withOrigin('connector'),
          }))();
        await untilStopped(updating);
      } catch (error) {
        if (isConnectorAuthError(error) || (signal?.aborted && error === signal.reason)) throw error;
        throw new ConnectorError(
          `the connector's update() failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            code: 'update_failed',
            hint: 'see the connector code; run with --verbose for the stack trace',
            cause: error,
          },
        );
      }
      await destination.flush();
      return { probe, counts: operations.counts() };
    } finally {
      // A checkpoint being saved when the run stopped is finished first: the state on disk is then
      // the last one announced, never half of one.
      await operations?.idle();
      await destination.close();
    }
  } finally {
    await auth.close();
  }
}

/**
 * `work`, or the stop signal's reason as soon as it fires, whichever comes first. What `work` does
 * after a stop is no longer awaited; its failure is dropped rather than reported as unhandled.
 */
function stopper(signal: AbortSignal | undefined): <T>(work: Promise<T>) => Promise<T> {
  if (!signal) return (work) => work;
  const stopped = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => undefined);
  return (work) => {
    work.catch(() => undefined);
    return Promise.race([work, stopped]);
  };
}

/**
 * Runs `prepare` once the probe has had two turns of the event loop to get its request onto the
 * network (module loading blocks the thread): the probe's round trip then overlaps the loading.
 */
async function whileProbing(prepare: () => void): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  try {
    prepare();
  } catch {
    // openDestination, after the probe, reports what is wrong with the destination.
  }
}
