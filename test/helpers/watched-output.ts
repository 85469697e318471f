import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * What a long-running child process (a server, a container) has printed, and a wait for a line of
 * it: an event, not a poll. `until` rejects when the process ends first, or, with a time limit,
 * when the limit passes; the error carries everything printed so far.
 */
export interface WatchedOutput {
  stdout(): string;
  stderr(): string;
  /** The exit code, once the process has ended and its output is read. */
  exited: Promise<number | null>;
  until(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function watchOutput(child: ChildProcessWithoutNullStreams, what: string): WatchedOutput {
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const printed = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  const until = (pattern: RegExp, timeoutMs?: number) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        waiters.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (pattern.test(stdout)) done();
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => done(new Error(`${what} did not print ${pattern} within ${timeoutMs} ms; ${printed()}`)),
              timeoutMs,
            );
      waiters.add(check);
      void exited.then((code) => {
        if (waiters.has(check)) done(new Error(`${what} exited (${code}) before printing ${pattern}; ${printed()}`));
      });
      check();
    });
  return { stdout: () => stdout, stderr: () => stderr, exited, until };
}
