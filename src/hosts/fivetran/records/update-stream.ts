import type { ServerWritableStream } from '@grpc/grpc-js';
import type { RawConfiguration } from '../../../config/index.js';
import type {
  AlertKind,
  ColumnType,
  Destination,
  State,
  StateStore,
  TableDefinition,
} from '../../../connector/index.js';
import { ConnectorError } from '../../../errors/index.js';
import { checkpointJson, type RotatedValues } from '../state/index.js';
import { RecordBatch, RecordType, type RecordTypeNumber } from './record-batch.js';
import type { RecordFilter } from './selection.js';
import { columnTypes } from './tables.js';

/**
 * The sending side of one Update call: the connector's operations become records, batched
 * (record-batch.ts), and its checkpoints become `Checkpoint { state_json }`, on the call's server
 * stream.
 *
 * Back-pressure: a batch is written when full; when the stream's buffer is over its mark (the
 * client reads slower than the connector produces, and HTTP/2 flow control has stopped the bytes),
 * the operation that filled the batch waits for the stream to drain, so update() itself waits and
 * memory stays bounded by a few batches, not by the sync. A checkpoint waits until it has been handed
 * to HTTP/2. When the client cancels, every waiting or later operation fails, and update() stops.
 */

export type UpdateCall = ServerWritableStream<unknown, Buffer | object>;

export interface UpdateStreamOptions {
  raw: RawConfiguration;
  rotated: RotatedValues;
  filter: RecordFilter;
  /** The state the request carried: what a checkpoint re-sends when only a rotated value changed. */
  state: State;
}

export class UpdateStream {
  readonly #call: UpdateCall;
  readonly #o: UpdateStreamOptions;
  readonly #batch = new RecordBatch();
  #types = new Map<string, Map<string, ColumnType>>();
  #keys = new Map<string, readonly string[]>();
  #lastState: State;
  #cancelled = false;
  #stopRequested = false;
  #stopped = false;
  readonly #wake = new Set<() => void>();
  records = 0;
  checkpoints = 0;

  constructor(call: UpdateCall, options: UpdateStreamOptions) {
    this.#call = call;
    this.#o = options;
    this.#lastState = options.state;
    call.on('cancelled', () => {
      this.#cancelled = true;
      for (const wake of this.#wake) wake();
    });
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** True once a stop was asked for and a checkpoint has gone since: update() is being ended. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** SIGTERM: the sync ends at its next checkpoint (the state then matches what was sent). */
  requestStop(): void {
    this.#stopRequested = true;
  }

  /** Where runConnector sends the operations. */
  destination(): Destination & { close(): Promise<void> } {
    return {
      declare: async (tables: TableDefinition[]) => {
        this.#types = columnTypes(tables);
        this.#keys = new Map(tables.map((t) => [t.table, t.primary_key ?? []]));
      },
      upsert: (table, row) => this.#add(table, RecordType.upsert, row),
      update: (table, row) => this.#add(table, RecordType.update, row),
      delete: (table, keys) => this.#add(table, RecordType.delete, keys),
      truncate: (table) => this.#add(table, RecordType.truncate, undefined),
      flush: () => this.#flushAll(),
      schemaChanges: 0,
      alert: (kind, message) => this.#sendAlert(kind, message),
      close: async () => {},
    };
  }

  /** A Warning or a Task on the dashboard, after the records batched before it. */
  async #sendAlert(kind: AlertKind, message: string): Promise<void> {
    await this.#flushAll();
    await this.#until((done) => this.#call.write({ [kind]: { message } }, () => done()));
  }

  stateStore(): StateStore {
    return {
      save: async (state, json) => {
        await this.#sendCheckpoint(checkpointJson(state, json, this.#o.raw, this.#o.rotated));
        this.#lastState = state;
        if (this.#stopRequested) {
          this.#stopped = true;
          throw stoppingError();
        }
      },
    };
  }

  /**
   * A checkpoint of the last state already sent (or the request's), carrying the newest rotated
   * values: what a rotation needs before the new credential is used. Records sent since the last
   * checkpoint are committed with the older state, so the next sync sends them again: never a gap.
   */
  async carryRotated(): Promise<void> {
    const json = JSON.stringify(this.#lastState);
    await this.#sendCheckpoint(checkpointJson(this.#lastState, json, this.#o.raw, this.#o.rotated));
  }

  async #add(table: string, type: RecordTypeNumber, row: Record<string, unknown> | undefined): Promise<void> {
    this.#check();
    const { filter } = this.#o;
    if (!filter.table(table)) return;
    this.#batch.add(table, type, row, this.#types.get(table), filter.columns(table, this.#keys.get(table) ?? []));
    this.records++;
    while (this.#batch.full) await this.#flushBatch();
  }

  /** Every record batched so far, in as many messages as the size cap makes of them. */
  async #flushAll(): Promise<void> {
    while (this.#batch.count > 0) await this.#flushBatch();
  }

  /** The next message of the batch (a record held back for size stays for the one after). */
  async #flushBatch(): Promise<void> {
    this.#check();
    const message = this.#batch.take();
    if (!message) return;
    if (this.#call.write(message)) return;
    await this.#until(
      (done) => this.#call.once('drain', done),
      (done) => this.#call.off('drain', done),
    );
  }

  async #sendCheckpoint(stateJson: string): Promise<void> {
    this.#check();
    // Records batched before it go first: the checkpoint covers them.
    await this.#flushAll();
    await this.#until((done) => this.#call.write({ checkpoint: { state_json: stateJson } }, () => done()));
    this.checkpoints++;
  }

  /** Resolves when `start`'s callback is called, or rejects when the client cancels first. */
  #until(start: (done: () => void) => void, stop?: (done: () => void) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#wake.delete(cancel);
        resolve();
      };
      const cancel = () => {
        stop?.(done);
        this.#wake.delete(cancel);
        reject(cancelled());
      };
      this.#wake.add(cancel);
      start(done);
      if (this.#cancelled) cancel();
    });
  }

  #check(): void {
    if (this.#cancelled) throw cancelled();
    if (this.#stopped) throw stoppingError();
  }
}

function cancelled(): ConnectorError {
  return new ConnectorError('the Update call was cancelled by the client; the sync stopped', {
    code: 'update_cancelled',
    hint: 'the next Update resumes from the last checkpoint',
  });
}

export function stoppingError(): ConnectorError {
  return new ConnectorError('connector-auth serve is shutting down: the sync stopped after its checkpoint', {
    code: 'serve_stopping',
    hint: 'the next Update resumes from that checkpoint',
  });
}
