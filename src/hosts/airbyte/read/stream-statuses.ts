import type { MessageOutput, StreamStatus } from '../messages/index.js';

/**
 * The STREAM_STATUS traces of a read, which Airbyte's platform shows per stream and certified
 * connectors send: STARTED for every selected stream once the source is probed, RUNNING at a
 * stream's first record, then COMPLETE for each when update() has finished, or INCOMPLETE for each
 * started one when the read fails.
 */
export class StreamStatuses {
  readonly #output: MessageOutput;
  readonly #streams: readonly string[];
  readonly #running = new Set<string>();
  #started = false;

  constructor(output: MessageOutput, streams: readonly string[]) {
    this.#output = output;
    this.#streams = streams;
  }

  started(): void {
    this.#started = true;
    for (const name of this.#streams) this.#send(name, 'STARTED');
  }

  /** A record of `stream` is about to go: the first one says RUNNING. */
  recordOf(stream: string): void {
    if (this.#running.has(stream)) return;
    this.#running.add(stream);
    this.#send(stream, 'RUNNING');
  }

  ended(status: 'COMPLETE' | 'INCOMPLETE'): void {
    if (!this.#started) return;
    for (const name of this.#streams) this.#send(name, status);
  }

  #send(name: string, status: StreamStatus): void {
    this.#output.send({
      type: 'TRACE',
      trace: { type: 'STREAM_STATUS', emitted_at: Date.now(), stream_status: { stream_descriptor: { name }, status } },
    });
  }
}
