import { createServer, type AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { authenticate, type Authenticated, type SourceClients } from '../../src/connector/index.js';
import { createLogger, type Logger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { ConnectedSource } from '../../src/sources/index.js';
import type { SshKeyPair, SshdPeer } from '../peers/sshd.js';
import { rejection, type Failure } from './rejection.js';

/**
 * What the tests of sources reached by name (postgres, sftp, postgres through a tunnel) share: a
 * session through `authenticate`, a probe expected to fail, and the check that a failure is one line
 * with a hint and no form of any secret anywhere a person could read.
 */

/** A logger that redacts nothing (its registry is empty): the lines show what the code itself chose to say. */
export function recordingLogger(lines: string[]): Logger {
  return createLogger({ format: 'json', level: 'debug', registry: new SecretRegistry(), write: (l) => lines.push(l) });
}

/**
 * Authenticates through the catalogue by name, as a connector's `source: '<name>'` does. The registry
 * comes back too, for tests of what was registered; `now` is the session's clock.
 */
export async function connectSource<S extends ConnectedSource>(
  config: Record<string, string>,
  source: string,
  options: { now?: () => number } = {},
): Promise<{ auth: Authenticated<S>; lines: string[]; registry: SecretRegistry }> {
  const lines: string[] = [];
  const registry = new SecretRegistry();
  const auth = await authenticate(config, {
    source: source as keyof SourceClients,
    registry,
    log: recordingLogger(lines),
    ...options,
  });
  return { auth: auth as unknown as Authenticated<S>, lines, registry };
}

/** Authenticates and probes, expecting a failure; the session is closed either way. */
export async function probeFailure(
  config: Record<string, string>,
  source: string,
): Promise<{ error: Failure; lines: string[] }> {
  const lines: string[] = [];
  const error = await rejection(
    (async () => {
      const auth = await authenticate(config, {
        source: source as keyof SourceClients,
        registry: new SecretRegistry(),
        log: recordingLogger(lines),
      });
      try {
        await auth.probe();
      } finally {
        await auth.close();
      }
    })(),
  );
  return { error, lines };
}

/** The body lines of a PEM block, each long enough to be recognisable if it leaked. */
export function pemLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----') && !line.includes(':'));
}

/** One line, a hint, and none of `forms` in the message, hint, stack, causes, JSON form or log lines. */
export function expectNoSecretIn(error: Failure, lines: string[], forms: string[]): void {
  expect(error.message).not.toContain('\n');
  expect(error.hint ?? '').not.toBe('');
  const causes: string[] = [];
  for (
    let e: unknown = (error as { cause?: unknown }).cause;
    e instanceof Error && causes.length < 8;
    e = (e as { cause?: unknown }).cause
  )
    causes.push(e.message, e.stack ?? '');
  const text = [error.message, error.hint ?? '', error.stack ?? '', JSON.stringify(error), ...causes, ...lines].join(
    '\n',
  );
  for (const form of forms) expect(text.includes(form), `a secret form leaked: ${form.slice(0, 12)}…`).toBe(false);
}

/**
 * Waits for an event a test cannot await directly (a background renewal, a peer's log line): the
 * condition polled until it holds, failing the test after a deadline generous enough for a loaded
 * 2-core machine, which only a hang reaches. Timed with performance.now(), which a test's fake Date
 * does not stop.
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline)
      throw new Error(`the condition did not hold within ${timeoutMs} ms: ${condition}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A TCP server on 127.0.0.1 that accepts connections and never says a word: a source that hangs. */
export async function silentServer(): Promise<{ port: number; close(): void }> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => void server.close() };
}

/** The `ssh_tunnel_*` keys that reach a source through `bastion`, logging in with `key`. */
export function tunnelKeys(bastion: SshdPeer, key: SshKeyPair): Record<string, string> {
  return {
    ssh_tunnel_host: bastion.host,
    ssh_tunnel_port: String(bastion.port),
    ssh_tunnel_user: bastion.user,
    ssh_tunnel_private_key: key.privateKey,
    ssh_tunnel_host_key_fingerprint: bastion.hostKeyFingerprint,
  };
}
