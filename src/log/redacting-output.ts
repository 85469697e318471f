import { secrets as defaultRegistry, type SecretRegistry } from '../secrets/index.js';

/**
 * The gate every printed byte passes. Once installed, `process.stdout.write` and
 * `process.stderr.write` redact registered secrets, so a connector's `console.log(configuration)`,
 * a library's debug print or an error message cannot leak one. Uncaught exceptions and unhandled
 * rejections are printed by Node's C++ layer straight to fd 2, bypassing `process.stderr`, so they
 * are caught here and printed through the gate instead.
 */

type Write = typeof process.stdout.write;

export function installRedactingOutput(registry: SecretRegistry = defaultRegistry): () => void {
  const restoreWrites = gateWrites(registry);
  const restoreFatal = gateUncaught(registry);
  return () => {
    restoreWrites();
    restoreFatal();
  };
}

/**
 * For a program that uses connector-auth as a library (`authenticate()`, `runConnector()`, without
 * the CLI): the output gate, installed once per process and registry, so `console.log(configuration)`
 * or a library's debug print cannot show a secret. `authenticate()` and `runConnector()` call it
 * with `{ uncaught: false }` (stdout and stderr only). Call it yourself first, as the README shows,
 * to also have an uncaught exception or rejection printed through the gate (Node prints those
 * straight to file descriptor 2, around it), the process then exiting with 1 as Node's default does.
 */
export function protectProcessOutput(options: { registry?: SecretRegistry; uncaught?: boolean } = {}): void {
  const registry = options.registry ?? defaultRegistry;
  if (!marks(GATED).has(registry)) gateWrites(registry);
  if (options.uncaught !== false && !marks(UNCAUGHT).has(registry)) gateUncaught(registry);
}

/**
 * Which registries gate this process's writes (and its uncaught errors), kept on `process` under a
 * global symbol: a connector project's `import 'connector-auth'` can be a second instance of this
 * module (the CLI runs from dist/, tests from src/), which must see the gate the first installed
 * rather than wrap it again.
 */
function marks(kind: symbol): WeakSet<SecretRegistry> {
  const holder = process as unknown as Record<symbol, WeakSet<SecretRegistry> | undefined>;
  return (holder[kind] ??= new WeakSet());
}

const GATED = Symbol.for('connector-auth.output-gate');
const UNCAUGHT = Symbol.for('connector-auth.output-gate.uncaught');

function gateWrites(registry: SecretRegistry): () => void {
  const restoreOut = wrap(process.stdout, registry);
  const restoreErr = wrap(process.stderr, registry);
  marks(GATED).add(registry);
  return () => {
    restoreOut();
    restoreErr();
    marks(GATED).delete(registry);
  };
}

function gateUncaught(registry: SecretRegistry): () => void {
  const onFatal = (error: unknown): void => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`fatal: ${text}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  marks(UNCAUGHT).add(registry);
  return () => {
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
    marks(UNCAUGHT).delete(registry);
  };
}

/** The write each gated stream had before the gate: what `writeUnredacted` calls. */
const ungated = new WeakMap<NodeJS.WritableStream, Write>();

/**
 * Writes past the gate. One caller has the right to: the Airbyte host's CONTROL message, whose
 * whole point is to hand a rotated secret to the platform that stores the configuration
 * (docs/hosts/airbyte.md). Everything else goes through `stream.write`, and is redacted.
 */
export function writeUnredacted(
  stream: NodeJS.WritableStream,
  chunk: string | Uint8Array,
  callback?: (error?: Error | null) => void,
): boolean {
  const write = ungated.get(stream) ?? stream.write;
  return (write as (chunk: string | Uint8Array, callback?: (error?: Error | null) => void) => boolean).call(
    stream,
    chunk,
    callback,
  );
}

function wrap(stream: NodeJS.WriteStream, registry: SecretRegistry): () => void {
  const original: Write = stream.write;
  if (!ungated.has(stream)) ungated.set(stream, original);
  const redacting = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const printed = printedText(chunk, rest[0]);
    const safe = printed === undefined ? undefined : registry.redact(printed.text);
    // Nothing to hide: the chunk goes out exactly as given (bytes that are not UTF-8 included).
    if (printed === undefined || safe === printed.text)
      return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    // The encoding argument described the original chunk; the redacted text has its own.
    const args = typeof rest[0] === 'string' ? [printed.encoding, ...rest.slice(1)] : rest;
    return (original as (...a: unknown[]) => boolean).call(this, safe, ...args);
  } as Write;
  stream.write = redacting;
  return () => {
    if (stream.write === redacting) {
      stream.write = original;
      if (ungated.get(stream) === original) ungated.delete(stream);
    }
  };
}

/** Encodings whose strings stand for bytes rather than characters. */
const BYTE_TEXT_ENCODINGS = new Set(['hex', 'base64', 'base64url']);

/**
 * What a chunk will print, as text to redact, and the encoding to write that text back with.
 * A string written with 'hex' or 'base64' stands for the bytes it encodes: those bytes are what
 * reaches the terminal, so they are decoded (as UTF-8) and checked, not the string, which would
 * only show the secret's hex or base64. A string in a character encoding (utf8, latin1, ucs2…) is
 * checked as it is. undefined: not readable here (an object chunk Node refuses, an unknown
 * encoding Node throws on); it is passed through to Node as given.
 */
function printedText(chunk: unknown, encoding: unknown): { text: string; encoding: BufferEncoding } | undefined {
  if (typeof chunk === 'string') {
    // No encoding, or '' (which Node reads as its default): utf8.
    if (typeof encoding !== 'string' || encoding === '') return { text: chunk, encoding: 'utf8' };
    if (!Buffer.isEncoding(encoding)) return undefined;
    if (!BYTE_TEXT_ENCODINGS.has(encoding.toLowerCase())) return { text: chunk, encoding };
    return { text: Buffer.from(chunk, encoding).toString('utf8'), encoding: 'utf8' };
  }
  if (chunk instanceof Uint8Array)
    return { text: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8'), encoding: 'utf8' };
  return undefined;
}
