import { ConnectorError, isConnectorAuthError } from '../../errors/index.js';
import type { ProbeResult } from '../../sources/index.js';
import type { Authenticated } from '../authentication/index.js';
import { createOperations, type OperationCounts, type State } from '../definition/index.js';
import type { Host } from './host.js';
import { probeLine, summaryLine } from './run-lines.js';
import { startRun, type StartedRun, type StartRunOptions } from './start-run.js';

export interface RunConnectorOptions extends StartRunOptions {
  /** Where rows, state, rotated secrets and log lines go: all a host provides (host.ts). */
  host: Host;
  state: State;
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
 * at the start of every sync, and a failure stops the sync before update() runs. The probe line and
 * the summary line are the run's, the same on every host.
 */
export async function runConnector(options: RunConnectorOptions): Promise<RunResult> {
  const started = performance.now();
  const { host, signal } = options;
  const untilStopped = stopper(signal);
  const run = await startRun(options);
  try {
    const probe = await probeWhilePreparing(run.auth, host, untilStopped);
    host.log.info(probeLine(probe));
    options.onProbed?.(probe);
    if (signal?.aborted) throw signal.reason;
    const counts = await sync(options, run, untilStopped);
    host.log.info(summaryLine(counts, performance.now() - started, host.summaryNote?.()));
    return { probe, counts };
  } finally {
    await run.auth.close();
  }
}

/** The probe, with the destination's code loaded while the probe's request is on the network. */
async function probeWhilePreparing(
  auth: Authenticated,
  host: Host,
  untilStopped: <T>(work: Promise<T>) => Promise<T>,
): Promise<ProbeResult> {
  const probing = auth.probe();
  if (host.prepareDestination) {
    probing.catch(() => {}); // its failure is awaited below; it must not count as unhandled meanwhile
    await whileProbing(() => host.prepareDestination?.());
  }
  return untilStopped(probing);
}

/** The destination opened, the schema declared, update() run with the operations; the counts. */
async function sync(
  options: RunConnectorOptions,
  { auth, configuration }: StartedRun,
  untilStopped: <T>(work: Promise<T>) => Promise<T>,
): Promise<OperationCounts> {
  const { connector, host, registry, signal } = options;
  const destination = await host.openDestination();
  let operations: ReturnType<typeof createOperations> | undefined;
  try {
    if (connector.schema) await destination.declare(await connector.schema(configuration));
    operations = createOperations(destination, host.state, registry, {
      ...(signal ? { signal } : {}),
      log: host.log,
    });
    options.onOperations?.(operations.counts);
    const { op } = operations;
    try {
      const updating = (async () =>
        connector.update({
          configuration,
          state: options.state,
          source: auth.source,
          op,
          log: host.log.withOrigin('connector'),
        }))();
      await untilStopped(updating);
    } catch (error) {
      throw updateFailure(error, signal);
    }
    await destination.flush();
    return operations.counts();
  } finally {
    // A checkpoint being saved when the run stopped is finished first: the state on disk is then
    // the last one announced, never half of one.
    await operations?.idle();
    await destination.close();
  }
}

/** What update()'s failure becomes: ours and a stop as they are, anything else `update_failed`. */
function updateFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (isConnectorAuthError(error) || (signal?.aborted && error === signal.reason)) return error;
  return new ConnectorError(
    `the connector's update() failed: ${error instanceof Error ? error.message : String(error)}`,
    {
      code: 'update_failed',
      hint: 'see the connector code; run with --verbose for the stack trace',
      cause: error,
    },
  );
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
