import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What the peers that run a real server binary (PostgreSQL, sshd, nginx) share: start it with its
 * stderr kept, wait until it is ready or has exited, stop it with its own graceful signal (SIGKILL
 * after a grace period), and never leave it running when the test process ends without stop().
 * Also: run a set-up command to its end, and find a free port.
 */

export interface Daemon {
  readonly child: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  log(): string;
  /** True once `condition` holds; false when the time is up or the server exited first. */
  until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean>;
  /** The graceful signal, SIGKILL after 5 s; resolves when the process is gone. */
  stop(): Promise<void>;
  /** SIGKILL at once: for a start that failed. */
  kill(): void;
}

export function spawnDaemon(
  command: string,
  args: string[],
  options: {
    stopSignal?: NodeJS.Signals;
    owner?: { uid: number; gid: number };
    keepStdinOpen?: boolean;
    /** The server's environment (default: the test process's). */
    env?: NodeJS.ProcessEnv;
  } = {},
): Daemon {
  // keepStdinOpen: a server that reads commands on stdin (openssl s_server) must not see it end.
  const child = spawn(command, args, {
    stdio: [options.keepStdinOpen ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    ...(options.owner ?? {}),
    ...(options.env ? { env: options.env } : {}),
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test process that exits without stop() (a crash, a cancelled run) must not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    log: () => log,
    until: (condition, timeoutMs) => Promise.race([waitFor(condition, timeoutMs), exited.then(() => false)]),
    async stop() {
      process.off('exit', killOnExit);
      if (!running()) return;
      child.kill(options.stopSignal ?? 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
    kill() {
      process.off('exit', killOnExit);
      child.kill('SIGKILL');
    },
  };
}

/** Polls `condition` until it holds (true) or the time is up (false). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return condition();
}

/**
 * The lines of a server's access log, once it holds at least `atLeast` of them. Apache, nginx and
 * lighttpd write a request's line after the answer has gone out, so a client can hold the answer
 * before the line exists: a test that counts lines waits for them rather than reading too soon.
 */
export async function accessLogLines(path: string, atLeast = 0): Promise<string[]> {
  const read = async () => (await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  let lines = await read();
  await waitFor(async () => (lines = await read()).length >= atLeast, 30_000);
  return lines;
}

/** A set-up command (initdb, useradd, ssh-keygen…) run to its end: its exit code and all it printed. */
export function runToEnd(
  command: string,
  args: string[],
  options: { owner?: { uid: number; gid: number }; input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.owner ?? {}),
      ...(options.env ? { env: options.env } : {}),
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    if (child.stdin) {
      // A command that exits before reading its input must not fail the test with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/**
 * A server started on a free port: `spawn(port)` starts it, `ready(daemon, port)` waits until it
 * serves. One that did not come up is killed; when `portTaken(log)` says another process took the
 * port between freePort() and the server's bind, another port is tried (five in all), else its log
 * is the error.
 */
export async function spawnOnFreePort(
  name: string,
  spawn: (port: number) => Daemon | Promise<Daemon>,
  ready: (daemon: Daemon, port: number) => Promise<boolean>,
  portTaken: (log: string) => boolean,
): Promise<{ daemon: Daemon; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const daemon = await spawn(port);
    if (await ready(daemon, port)) return { daemon, port };
    daemon.kill();
    if (attempt < 5 && portTaken(daemon.log())) continue;
    throw new Error(`${name} did not start: ${daemon.log()}`);
  }
}

/** An ephemeral port: bound by the OS, released, then given to the server. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * A peer started in a temp directory of its own: `start` gets the directory and a `track` for the
 * server it spawns; when the start throws, that server is killed and the directory removed.
 */
export async function startInTempDir<T>(
  prefix: string,
  start: (dir: string, track: (server: Daemon) => Daemon) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  let server: Daemon | undefined;
  try {
    return await start(dir, (spawned) => (server = spawned));
  } catch (error) {
    server?.kill();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The end of a peer started by startInTempDir: its server stopped, then its directory removed. */
export async function stopAndRemove(server: Daemon, dir: string): Promise<void> {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
