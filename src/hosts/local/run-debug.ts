import { readConfiguration, readConfigurationFile, type Configuration } from '../../config/index.js';
import {
  runConnector,
  type Host,
  type OperationCounts,
  type RotationKeeper,
  type RunResult,
  type State,
} from '../../connector/index.js';
import { ConfigurationError, InterruptedError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { secrets, type SecretRegistry } from '../../secrets/index.js';
import type { ProbeResult } from '../../sources/index.js';
import { configurationFileRotation, loadConnector, projectPaths, type ProjectPaths } from '../../project/index.js';
import { unlessStopped, watchInterruption, type StopSignal } from './interruption.js';
import { checkRunFiles } from './project-files.js';
import { lockProject } from './project-lock.js';
import { RunWarehouse } from './run-warehouse.js';
import { readState, writeStateAtomically } from './state-file.js';

export interface DebugOptions {
  project?: string;
  configurationPath?: string;
  /** Initial state to start from instead of files/state.json. */
  statePath?: string;
  log: Logger;
  registry?: SecretRegistry;
  /** Called about every `progressEveryMs` with the counts so far (a progress line on a terminal). */
  onProgress?: (counts: OperationCounts) => void;
  progressEveryMs?: number;
  /** Keeps a rotated configuration value; defaults to rewriting configuration.json. */
  rotation?: RotationKeeper;
}

export interface DebugResult {
  paths: ProjectPaths;
  probe: ProbeResult;
  counts: OperationCounts;
  elapsedMs: number;
}

/**
 * `connector-auth debug`: configuration → authenticate → probe → update() into the local warehouse.
 * Nothing is written under files/ until the probe has succeeded, so a bad configuration or a wrong
 * credential leaves the project as it was. One run per project at a time: the lock is taken before
 * the state is read or anything is probed. SIGINT or SIGTERM stops the run cleanly (interruption.ts).
 *
 * What a failed or stopped run leaves: state.json holds the last checkpoint's state (or what it held
 * before, without one); the warehouse holds every operation issued before the failure, those after
 * the last checkpoint included, flushed when it is closed. The next run resumes from the checkpoint
 * and writes those rows again, which an upsert, update or delete by key makes harmless: delivery is
 * at-least-once, as the connector SDK's is (docs/decisions.md).
 */
export async function runDebug(options: DebugOptions): Promise<DebugResult> {
  const started = performance.now();
  const paths = projectPaths(options.project, options.configurationPath);
  const lock = lockProject(paths.project, 'debug');
  const interruption = watchInterruption(options.log);
  const progress = watchProgress(options);
  let warehouse: RunWarehouse | undefined;
  let stopped = false;
  try {
    checkRunFiles(paths, 'run');
    warehouse = new RunWarehouse(paths);
    const registry = options.registry ?? secrets;
    // The run's one read of its configuration. Secrets registered before the connector file runs:
    // its top-level code could already print a value.
    const configuration = readConfiguration(await readConfigurationFile(paths.configuration), { registry });
    try {
      const result = await syncProject({ options, paths, configuration, registry, warehouse, progress, interruption });
      return { paths, probe: result.probe, counts: result.counts, elapsedMs: performance.now() - started };
    } catch (error) {
      const received = interruption.received;
      if (received === undefined) throw error;
      stopped = true;
      throw interrupted(received, paths, warehouse.opened ? progress.counts()?.checkpoints : undefined, error);
    }
  } finally {
    await warehouse?.closeUnused();
    progress.stop();
    interruption.dispose(stopped);
    await lock.release();
  }
}

interface DebugRun {
  options: DebugOptions;
  paths: ProjectPaths;
  configuration: Configuration;
  registry: SecretRegistry;
  warehouse: RunWarehouse;
  progress: Progress;
  interruption: { signal: AbortSignal };
}

/** The connector loaded, the state read, and the one run into the warehouse and the state file. */
async function syncProject(run: DebugRun): Promise<RunResult> {
  const { options, paths, interruption } = run;
  // Loading runs the connector's top-level code, which a stop cannot interrupt: it is no longer awaited.
  const { connector } = await unlessStopped(loadConnector(paths.project), interruption.signal);
  const state = await readInitialState(options.statePath ?? paths.state, options.statePath !== undefined);
  return runConnector({
    connector,
    configuration: run.configuration,
    state,
    registry: run.registry,
    signal: interruption.signal,
    authenticate: { filesDir: paths.files },
    host: localHost(run),
    onOperations: (get) => run.progress.follow(get),
  });
}

/** What `debug` gives the run: the warehouse, the state file, configuration.json for a rotated secret. */
function localHost({ options, paths, warehouse, progress }: DebugRun): Host {
  const prepare = warehouse.prepare;
  return {
    log: options.log,
    // A rotated refresh token is written back to configuration.json before it is used.
    rotation:
      options.rotation ??
      configurationFileRotation({ configurationPath: paths.configuration, filesDir: paths.files, log: options.log }),
    ...(prepare ? { prepareDestination: prepare } : {}),
    openDestination: () => warehouse.open(),
    state: { save: (next: State) => writeStateAtomically(paths.state, next) },
    summaryNote: () => {
      const written = progress.counts()?.upsertPaths;
      return written ? `upserts appended ${written.appended}, merged ${written.merged}` : '';
    },
  };
}

interface Progress {
  /** The counts so far, once update() has started. */
  counts(): OperationCounts | undefined;
  follow(counts: () => OperationCounts): void;
  stop(): void;
}

/** The run's counts, and `onProgress` called with them every `progressEveryMs` (a progress line). */
function watchProgress(options: Pick<DebugOptions, 'onProgress' | 'progressEveryMs'>): Progress {
  let current: (() => OperationCounts) | undefined;
  const counts = () => current?.();
  const timer =
    options.onProgress &&
    setInterval(() => {
      const now = counts();
      if (now) options.onProgress?.(now);
    }, options.progressEveryMs ?? 200).unref();
  return {
    counts,
    follow: (get) => (current = get),
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}

/** What a stopped run says: where the state is, where the next run starts, what the warehouse holds. */
function interrupted(
  signal: StopSignal,
  paths: ProjectPaths,
  checkpoints: number | undefined,
  cause: unknown,
): InterruptedError {
  if (checkpoints === undefined)
    return new InterruptedError(signal, `interrupted by ${signal} before the sync started: nothing was written`, {
      cause,
    });
  const state =
    checkpoints > 0
      ? `${paths.state} holds the state of the last checkpoint (${checkpoints} in this run) and the next run resumes there`
      : `no checkpoint was made in this run: ${paths.state} is as it was, and the next run starts from there`;
  return new InterruptedError(
    signal,
    `interrupted by ${signal}: ${state}; the warehouse was closed cleanly (rows written since the last checkpoint stay and are written again)`,
    {
      cause,
      hint: 'run connector-auth debug again to go on',
    },
  );
}

async function readInitialState(path: string, explicit: boolean): Promise<State> {
  try {
    return await readState(path);
  } catch (error) {
    throw new ConfigurationError(
      `cannot use the state file: ${error instanceof Error ? error.message : String(error)}`,
      {
        code: 'state_unreadable',
        hint: explicit
          ? 'check the file given with --state'
          : 'fix or remove files/state.json (connector-auth reset deletes it)',
        cause: error,
      },
    );
  }
}
