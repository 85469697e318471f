import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The container engine the image tests build and run with: Debian's podman, with runc, as root.
 * Its settings come from a containers.conf the tests write (named by CONTAINERS_CONF), so that
 * nothing of the machine's own configuration is relied on: the host's network (the test peers
 * listen on 127.0.0.1, and no bridge network needs setting up), runc, and the limits a container
 * gets whatever the machine's defaults are.
 */

const CONTAINERS_CONF = `[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
netns = "host"
[engine]
runtime = "runc"
`;

let confPath: string | undefined;

/** The environment podman runs with: the test process's, with CONTAINERS_CONF naming the tests' file. */
export function podmanEnv(): NodeJS.ProcessEnv {
  if (confPath === undefined) {
    const dir = join(tmpdir(), `connector-auth-podman-${process.getuid?.() ?? 'user'}`);
    mkdirSync(dir, { recursive: true });
    confPath = join(dir, 'containers.conf');
    writeFileSync(confPath, CONTAINERS_CONF);
  }
  return { ...process.env, CONTAINERS_CONF: confPath };
}

export interface PodmanRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one podman command to its end. */
export function podman(args: string[], options: { cwd?: string } = {}): Promise<PodmanRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { cwd: options.cwd, env: podmanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs one podman command and fails with its output when it does not exit 0. */
export async function podmanOk(args: string[], options: { cwd?: string } = {}): Promise<string> {
  const run = await podman(args, options);
  if (run.code !== 0)
    throw new Error(`podman ${args.join(' ')} exited ${run.code}:\n${run.stderr.trim() || run.stdout.trim()}`);
  return run.stdout;
}
