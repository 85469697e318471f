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
  const restoreOut = wrap(process.stdout, registry);
  const restoreErr = wrap(process.stderr, registry);
  const onFatal = (error: unknown): void => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`fatal: ${text}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  return () => {
    restoreOut();
    restoreErr();
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  };
}

function wrap(stream: NodeJS.WriteStream, registry: SecretRegistry): () => void {
  const original: Write = stream.write;
  const redacting = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : chunk;
    const safe = typeof text === 'string' ? registry.redact(text) : text;
    // An encoding argument only applies to the original string; ours is always utf8.
    const args = typeof rest[0] === 'string' ? ['utf8', ...rest.slice(1)] : rest;
    return (original as (...a: unknown[]) => boolean).call(this, safe, ...args);
  } as Write;
  stream.write = redacting;
  return () => {
    if (stream.write === redacting) stream.write = original;
  };
}
