import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ConnectorError } from '../../errors/index.js';

/**
 * One local run per project at a time. `debug` takes this lock before it reads state.json or
 * probes anything, so a second run fails at once, with one line, instead of probing the source,
 * re-syncing from a state the first run is about to replace, and then meeting DuckDB's own lock
 * on the warehouse. `reset` takes it too: it must not delete a warehouse a run is writing.
 *
 * The lock is a file outside the project (the project stays as it was until a probe succeeds),
 * named after the project's real path and holding the owner's PID. A lock whose process is gone
 * (a run killed with SIGKILL) is stale and taken over. Taken with synchronous calls, as a command's
 * start reads its small files (config/file/read-text-file.ts): five thread-pool round trips fewer.
 */

export interface ProjectLock {
  readonly path: string;
  release(): Promise<void>;
}

export function lockProject(project: string, purpose: string): ProjectLock {
  const path = lockPathOf(project);
  try {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw lockFailed(error, project, path);
  }
  const owner = `${process.pid}\n${hostname()}\n${purpose}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, owner);
      } finally {
        closeSync(fd);
      }
      return held(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw lockFailed(error, project, path);
    }
    const holder = readHolder(path);
    if (holder && isAlive(holder.pid)) throw busy(project, path, holder);
    // Stale: its process is gone. Removed only if it is still the file just read (another run
    // may have taken it over meanwhile), then taken once more; a second EEXIST means another won.
    if (attempt === 0 && readHolder(path)?.text === holder?.text) {
      try {
        unlinkSync(path);
      } catch {
        // taken over meanwhile, or gone
      }
    }
  }
  throw busy(project, path, readHolder(path));
}

function held(path: string): ProjectLock {
  // A run that ends through process.exit (a second Ctrl-C) still leaves no lock behind.
  const onExit = () => {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.once('exit', onExit);
  return {
    path,
    release: async () => {
      process.off('exit', onExit);
      await unlink(path).catch(() => undefined);
    },
  };
}

function lockPathOf(project: string): string {
  let real = project;
  try {
    real = realpathSync(project);
  } catch {
    // a project that does not exist yet is named by its path
  }
  const name = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return join(tmpdir(), `connector-auth-locks-${safeUser()}`, `${name}.lock`);
}

/** Per user: another user's run of the same project has its own temporary directory. */
function safeUser(): string {
  try {
    const { uid, username } = userInfo();
    return uid >= 0 ? String(uid) : username.replace(/[^\w.-]/g, '_');
  } catch {
    return 'user';
  }
}

function readHolder(path: string): { pid: number; purpose: string; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const [pid, , purpose] = text.split('\n');
  return { pid: Number(pid), purpose: purpose || 'a run', text };
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function busy(project: string, path: string, holder: { pid: number; purpose: string } | undefined): ConnectorError {
  const who = holder && Number.isInteger(holder.pid) ? `${holder.purpose} (PID ${holder.pid})` : 'run';
  return new ConnectorError(`another connector-auth ${who} is using the project ${project}`, {
    code: 'project_busy',
    hint: `wait for it to finish; if no such process is running, delete ${path}`,
  });
}

function lockFailed(error: unknown, project: string, path: string): ConnectorError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  return new ConnectorError(`cannot take the lock of the project ${project} (${path}: ${code})`, {
    code: 'project_lock_failed',
    hint: `check that ${join(path, '..')} is writable`,
    cause: error,
  });
}
