import { writeUnredacted } from '../../../log/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { AirbyteMessage, JsonObject } from './protocol.js';

/**
 * Standard output while an `airbyte` command runs: every line one AirbyteMessage, and nothing else.
 *
 * - Lines are redacted here, once, and written past the process-wide gate (which would only redact
 *   them again). Whole lines go into a chunk, so a secret can never straddle two redactions (a
 *   JSON-encoded line holds no raw line break). A RECORD whose values the row guard has just
 *   checked is not scanned a second time, when the registry says JSON around clean values is clean
 *   (`cleanAroundCheckedValues`) and no secret has been registered between the check and the write.
 * - RECORD lines are batched (64 KiB) and the writer waits for 'drain' when the pipe is full: a
 *   reader that is slower than the connector slows the connector instead of filling this
 *   process's memory. Other messages go out at once, after the records before them.
 * - The CONTROL message is the one line written unredacted: it hands Airbyte the configuration
 *   with a rotated credential to store (docs/hosts/airbyte.md). It is on its way to the reader
 *   before `control()` resolves, so the new token is stored before it is used.
 * - Anything else that writes to process.stdout (a connector's console.log, a library's print)
 *   becomes LOG messages, one per write that ends a line, redacted like the rest.
 */
export interface MessageOutput {
  send(message: AirbyteMessage): void;
  /**
   * One RECORD; resolves at once unless the reader is behind. `checked`: `data` is the JSON of a row
   * whose names and values the row guard found clean just now, with no object value and no escape.
   */
  record(stream: string, data: JsonObject | string, emittedAt: number, checked?: boolean): Promise<void> | undefined;
  control(config: JsonObject): Promise<void>;
  flush(): Promise<void>;
  /** Flushes, and gives process.stdout.write back. */
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;
/** What follows a RECORD's data, before the number of its time. */
const TAIL = ',"emitted_at":';

export function openMessageOutput(options: { registry: SecretRegistry; stream?: NodeJS.WriteStream }): MessageOutput {
  return new StdoutMessages(options.registry, options.stream ?? process.stdout);
}

/** The output from open to close: the chunk being filled, what of it is checked, the captured write. */
class StdoutMessages implements MessageOutput {
  readonly #registry: SecretRegistry;
  readonly #stream: NodeJS.WriteStream;
  #pending = '';
  // The leading characters of `pending` that are checked RECORD lines, and the registry's generation
  // when they were checked: a secret registered since means they are scanned after all.
  #checkedLength = 0;
  #checkedAt = -1;
  // The start of a RECORD line, per stream: the name is encoded once, not once per record.
  readonly #heads = new Map<string, string>();
  #drained: Promise<void> | undefined;
  // The registry's answer for the last head asked about, and its generation then.
  #askedHead = '';
  #askedAt = -1;
  #answer = false;
  /** An unfinished stray line, waiting for its end (or close). */
  #stray = '';
  readonly #original: NodeJS.WriteStream['write'];
  readonly #capture: NodeJS.WriteStream['write'];

  constructor(registry: SecretRegistry, stream: NodeJS.WriteStream) {
    this.#registry = registry;
    this.#stream = stream;
    this.#original = stream.write;
    this.#capture = this.#captureWrites();
    stream.write = this.#capture;
  }

  send(message: AirbyteMessage): void {
    this.#pending += `${JSON.stringify(message)}\n`;
    this.#writeChunk();
  }

  record(name: string, data: JsonObject | string, emittedAt: number, checked = false): Promise<void> | undefined {
    const json = typeof data === 'string' ? data : JSON.stringify(data);
    let head = this.#heads.get(name);
    if (head === undefined)
      this.#heads.set(name, (head = `{"type":"RECORD","record":{"stream":${JSON.stringify(name)},"data":`));
    const line = `${head}${json}${TAIL}${emittedAt}}}\n`;
    if (checked && this.#checkedLength === this.#pending.length && this.#cleanAfterCheck(head))
      this.#checkedLength += line.length;
    this.#append(line);
    return this.#drained;
  }

  async control(config: JsonObject): Promise<void> {
    await this.flush();
    const line = `${JSON.stringify({ type: 'CONTROL', control: { type: 'CONNECTOR_CONFIG', emitted_at: Date.now(), connectorConfig: { config } } } satisfies AirbyteMessage)}\n`;
    await new Promise<void>((resolve, reject) =>
      writeUnredacted(this.#stream, line, (error) => (error ? reject(error) : resolve())),
    );
  }

  async flush(): Promise<void> {
    this.#writeChunk();
    while (this.#drained) await this.#drained;
  }

  async close(): Promise<void> {
    if (this.#stray !== '') this.#strayLog(this.#stray);
    this.#stray = '';
    await this.flush();
    if (this.#stream.write === this.#capture) this.#stream.write = this.#original;
  }

  #writeChunk(): void {
    const pending = this.#pending;
    if (pending === '') return;
    const registry = this.#registry;
    const clean = registry.generation === this.#checkedAt ? this.#checkedLength : 0;
    const chunk =
      registry.size === 0 || clean === pending.length
        ? pending
        : pending.slice(0, clean) + registry.redact(pending.slice(clean));
    this.#pending = '';
    this.#checkedLength = 0;
    if (!writeUnredacted(this.#stream, chunk) && !this.#drained) {
      this.#drained = new Promise<void>((resolve) =>
        this.#stream.once('drain', () => ((this.#drained = undefined), resolve())),
      );
    }
  }

  #append(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= CHUNK) this.#writeChunk();
  }

  /** Whether a line checked now can skip the scan; the first in a chunk sets the generation. */
  #cleanAfterCheck(head: string): boolean {
    if (this.#checkedLength === 0) this.#checkedAt = this.#registry.generation;
    if (this.#checkedAt !== this.#registry.generation) return false;
    // Asked once per stream and registry: the same head string comes back for every record.
    if (head !== this.#askedHead || this.#askedAt !== this.#checkedAt) {
      this.#askedHead = head;
      this.#askedAt = this.#checkedAt;
      this.#answer = this.#registry.cleanAroundCheckedValues(head + TAIL);
    }
    return this.#answer;
  }

  #strayLog(text: string): void {
    this.send({ type: 'LOG', log: { level: 'INFO', message: this.#registry.redact(text) } });
  }

  /**
   * The stream's write while the output is open. A stray print is one LOG message per write that
   * ends a line: one console.log call, however many lines it holds, is one message (its line breaks
   * JSON-escaped).
   */
  #captureWrites(): NodeJS.WriteStream['write'] {
    return ((chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
      this.#stray += strayText(chunk, encoding);
      const end = this.#stray.lastIndexOf('\n');
      if (end >= 0) {
        this.#strayLog(this.#stray.slice(0, end));
        this.#stray = this.#stray.slice(end + 1);
      }
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    }) as NodeJS.WriteStream['write'];
  }
}

/** A written chunk as text, decoded from its encoding (or as UTF-8 bytes). */
function strayText(chunk: unknown, encoding: unknown): string {
  if (typeof chunk !== 'string') return Buffer.from(chunk as Uint8Array).toString('utf8');
  return typeof encoding === 'string' && Buffer.isEncoding(encoding)
    ? Buffer.from(chunk, encoding).toString('utf8')
    : chunk;
}
