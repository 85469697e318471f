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
  const { registry } = options;
  const stream = options.stream ?? process.stdout;
  let pending = '';
  // The leading characters of `pending` that are checked RECORD lines, and the registry's generation
  // when they were checked: a secret registered since means they are scanned after all.
  let checkedLength = 0;
  let checkedAt = -1;
  // The start of a RECORD line, per stream: the name is encoded once, not once per record.
  const heads = new Map<string, string>();
  let drained: Promise<void> | undefined;

  const writeChunk = (): void => {
    if (pending === '') return;
    const clean = registry.generation === checkedAt ? checkedLength : 0;
    const chunk =
      registry.size === 0 || clean === pending.length
        ? pending
        : pending.slice(0, clean) + registry.redact(pending.slice(clean));
    pending = '';
    checkedLength = 0;
    if (!writeUnredacted(stream, chunk) && !drained) {
      drained = new Promise<void>((resolve) => stream.once('drain', () => ((drained = undefined), resolve())));
    }
  };
  const append = (line: string): void => {
    pending += line;
    if (pending.length >= CHUNK) writeChunk();
  };
  /** Whether a line checked now can skip the scan; the first in a chunk sets the generation. */
  const cleanAfterCheck = (head: string): boolean => {
    if (checkedLength === 0) checkedAt = registry.generation;
    if (checkedAt !== registry.generation) return false;
    // Asked once per stream and registry: the same head string comes back for every record.
    if (head !== askedHead || askedAt !== checkedAt) {
      askedHead = head;
      askedAt = checkedAt;
      answer = registry.cleanAroundCheckedValues(head + TAIL);
    }
    return answer;
  };
  let askedHead = '';
  let askedAt = -1;
  let answer = false;
  const send = (message: AirbyteMessage): void => {
    pending += `${JSON.stringify(message)}\n`;
    writeChunk();
  };

  // A stray print is one LOG message per write that ends a line: one console.log call, however many
  // lines it holds, is one message (its line breaks JSON-escaped). An unfinished line waits for its
  // end (or close).
  let stray = '';
  const original = stream.write;
  const capture = function (chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const text =
      typeof chunk === 'string'
        ? typeof encoding === 'string' && Buffer.isEncoding(encoding)
          ? Buffer.from(chunk, encoding).toString('utf8')
          : chunk
        : Buffer.from(chunk as Uint8Array).toString('utf8');
    stray += text;
    const end = stray.lastIndexOf('\n');
    if (end >= 0) {
      send({ type: 'LOG', log: { level: 'INFO', message: registry.redact(stray.slice(0, end)) } });
      stray = stray.slice(end + 1);
    }
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  } as typeof stream.write;
  stream.write = capture;

  const flush = async (): Promise<void> => {
    writeChunk();
    while (drained) await drained;
  };
  return {
    send,
    record(name, data, emittedAt, checked = false) {
      const json = typeof data === 'string' ? data : JSON.stringify(data);
      let head = heads.get(name);
      if (head === undefined)
        heads.set(name, (head = `{"type":"RECORD","record":{"stream":${JSON.stringify(name)},"data":`));
      const line = `${head}${json}${TAIL}${emittedAt}}}\n`;
      if (checked && checkedLength === pending.length && cleanAfterCheck(head)) checkedLength += line.length;
      append(line);
      return drained;
    },
    async control(config) {
      await flush();
      const line = `${JSON.stringify({ type: 'CONTROL', control: { type: 'CONNECTOR_CONFIG', emitted_at: Date.now(), connectorConfig: { config } } } satisfies AirbyteMessage)}\n`;
      await new Promise<void>((resolve, reject) =>
        writeUnredacted(stream, line, (error) => (error ? reject(error) : resolve())),
      );
    },
    flush,
    async close() {
      if (stray !== '') send({ type: 'LOG', log: { level: 'INFO', message: registry.redact(stray) } });
      stray = '';
      await flush();
      if (stream.write === capture) stream.write = original;
    },
  };
}
