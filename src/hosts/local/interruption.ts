import { ExitCode, InterruptedError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';

/**
 * SIGINT (Ctrl-C) and SIGTERM during a local run. The first one stops the run through its
 * AbortSignal (runConnector: operations refused, the checkpoint being saved finished, the warehouse
 * flushed and closed, so DuckDB leaves no write-ahead log), and the run then ends with the message
 * the host builds and exit 130 or 143. A second one ends the process at once, as shells expect of a
 * second Ctrl-C; DuckDB replays its log at the next open.
 */

export type StopSignal = 'SIGINT' | 'SIGTERM';

export interface Interruption {
  readonly signal: AbortSignal;
  /** The signal that stopped the run, if one did. */
  readonly received: StopSignal | undefined;
  /**
   * Removes the handlers. `stopped`: the run ended because of the signal; the process is then made
   * sure to end even if the connector left work pending (a run that finished anyway ends as usual).
   */
  dispose(stopped: boolean): void;
}

/** How long a stopped process may take to end by itself, once the run is over, before it is ended. */
const EXIT_GRACE_MS = 500;
/**
 * How long the first signal gives the run to stop cleanly (finish a checkpoint, flush and close the
 * warehouse) before the process is ended anyway: a connector stuck in its own code, or a load that
 * never returns, cannot keep it alive.
 */
const STOP_BOUND_SECONDS = 10;

export function watchInterruption(log: Logger): Interruption {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  const on = (name: StopSignal) => () => {
    if (received !== undefined) {
      log.warning(`${name} again: stopping at once`);
      process.exit(exitCodeOf(name));
    }
    received = name;
    log.warning(`${name}: stopping (a checkpoint being saved is finished first); closing the warehouse`);
    setTimeout(() => {
      log.warning(`${name}: the run did not stop within ${STOP_BOUND_SECONDS} s; ending it now`);
      process.exit(exitCodeOf(name));
    }, STOP_BOUND_SECONDS * 1000).unref();
    controller.abort(new InterruptedError(name, `interrupted by ${name}`));
  };
  const handlers = { SIGINT: on('SIGINT'), SIGTERM: on('SIGTERM') };
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose(stopped) {
      process.off('SIGINT', handlers.SIGINT);
      process.off('SIGTERM', handlers.SIGTERM);
      // The connector's update() may still be waiting on a timer or a socket of its own: nothing
      // else will end it. An unref'd timer fires only if something else keeps the process alive.
      if (stopped && received !== undefined)
        setTimeout(() => process.exit(exitCodeOf(received!)), EXIT_GRACE_MS).unref();
    },
  };
}

function exitCodeOf(name: StopSignal): number {
  return name === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
}

/** `work`, unless the run is stopped first: then the stop's reason is thrown and `work` is no longer awaited. */
export function unlessStopped<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
