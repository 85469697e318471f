import { mkdir } from 'node:fs/promises';
import type { ProjectPaths } from '../../project/index.js';
import { Warehouse, preloadDuckDB } from './warehouse/index.js';

/**
 * The warehouse of one `debug` run. A file from an earlier run opens at once, on DuckDB's own
 * thread, reading only, while the configuration is read and the connector loads and probes: a run
 * that fails before update() leaves the file as it was, and its failure to open (the file held by
 * another process, say) is reported after the probe, as a new file's is. Without one, the file is
 * created only when the run opens its destination, after the probe succeeded.
 */
export class RunWarehouse {
  readonly #paths: ProjectPaths;
  /** The early warehouse until the run takes it (or the run ends without it). */
  #early: Promise<Warehouse> | undefined;
  #opened = false;

  constructor(paths: ProjectPaths) {
    this.#paths = paths;
    this.#early = Warehouse.openExisting(paths.warehouse);
    this.#early?.catch(() => undefined);
  }

  /** Whether the run got as far as its destination (what a stopped run says depends on it). */
  get opened(): boolean {
    return this.#opened;
  }

  /** DuckDB's module, loaded while the probe is on the network, when nothing opened it early. */
  get prepare(): (() => void) | undefined {
    return this.#early ? undefined : preloadDuckDB;
  }

  /** The run's destination: the early warehouse, now the run's to close, else a new file. */
  async open(): Promise<Warehouse> {
    const early = this.#early;
    this.#early = undefined;
    const warehouse = early ? await early : await openNew(this.#paths);
    this.#opened = true;
    return warehouse;
  }

  /** Opened early but never handed to the run (it stopped before update()): closed untouched. */
  async closeUnused(): Promise<void> {
    await this.#early?.then((warehouse) => warehouse.close()).catch(() => undefined);
  }
}

async function openNew(paths: ProjectPaths): Promise<Warehouse> {
  // DuckDB's module first: a project without the package gets its error with files/ untouched.
  preloadDuckDB();
  await mkdir(paths.files, { recursive: true });
  return Warehouse.open(paths.warehouse);
}
