import { mkdir } from 'node:fs/promises';
import { readConfigurationFile, registerConfigurationSecrets } from '../../config/index.js';
import { runConnector, type OperationCounts, type State } from '../../connector/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { secrets, type SecretRegistry } from '../../secrets/index.js';
import type { ProbeResult } from '../../sources/index.js';
import { createConfigurationPersister, loadConnector, projectPaths, type ProjectPaths } from '../../project/index.js';
import { readState, writeStateAtomically } from './state-file.js';
import { Warehouse, preloadDuckDB } from './warehouse/index.js';

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
  /** Persists a rotated configuration value; defaults to rewriting configuration.json. */
  persistConfigurationValue?: (key: string, value: string) => Promise<void>;
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
 * credential leaves the project as it was.
 */
export async function runDebug(options: DebugOptions): Promise<DebugResult> {
  const started = performance.now();
  const registry = options.registry ?? secrets;
  const paths = projectPaths(options.project, options.configurationPath);
  const raw = await readConfigurationFile(paths.configuration);
  // Registered before the connector file runs: its top-level code could already print a value.
  registerConfigurationSecrets(raw, { registry });
  const { connector } = await loadConnector(paths.project);
  const state = await readInitialState(options.statePath ?? paths.state, options.statePath !== undefined);

  let counts: (() => OperationCounts) | undefined;
  const timer =
    options.onProgress &&
    setInterval(() => counts && options.onProgress?.(counts()), options.progressEveryMs ?? 200).unref();
  try {
    const result = await runConnector({
      connector,
      configuration: raw,
      state,
      log: options.log,
      registry,
      authenticate: {
        filesDir: paths.files,
        // A rotated refresh token is written back to configuration.json before it is used.
        persistConfigurationValue:
          options.persistConfigurationValue ??
          createConfigurationPersister({ configurationPath: paths.configuration, filesDir: paths.files, log: options.log }),
      },
      onProbed: (probe) => options.log.info(`probe succeeded: ${probe.target} → ${probe.outcome} in ${Math.round(probe.elapsedMs)} ms`),
      prepareDestination: preloadDuckDB,
      openDestination: async () => {
        await mkdir(paths.files, { recursive: true });
        return Warehouse.open(paths.warehouse);
      },
      onOperations: (get) => (counts = get),
      stateStore: {
        save: (next: State) =>
          writeStateAtomically(paths.state, next, {
            refuse: (json) => {
              const keys = registry.labelsIn(json);
              return keys.length === 0
                ? undefined
                : `refusing to save the state: it holds the value of secret configuration key(s) ${keys.map((k) => `'${k}'`).join(', ')} (state.json is not encrypted)`;
            },
          }),
      },
    });
    return { paths, probe: result.probe, counts: result.counts, elapsedMs: performance.now() - started };
  } finally {
    if (timer) clearInterval(timer);
  }
}

async function readInitialState(path: string, explicit: boolean): Promise<State> {
  try {
    return await readState(path);
  } catch (error) {
    throw new ConfigurationError(`cannot use the state file: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'state_unreadable',
      hint: explicit ? 'check the file given with --state' : 'fix or remove files/state.json (connector-auth reset)',
      cause: error,
    });
  }
}
