import { spawn } from 'node:child_process';
import { initTemplate } from '../../helpers/cli.js';
import { watchOutput, type WatchedOutput } from '../../helpers/watched-output.js';
import { runToEnd } from '../../peers/daemon.js';
import { podman, podmanEnv, podmanOk, type PodmanRun } from '../../peers/podman.js';

/**
 * What the image tests share: a project laid out as `init` writes it for an image build, the build,
 * and the container run as each platform runs it.
 */

/**
 * A project as a user makes one for an image: `init` (which vendors this checkout's connector-auth as
 * `vendor/connector-auth-<version>.tgz` and names it in package.json), then `npm install` of the
 * connector's own packages (`name@range`), which writes them and the package-lock.json the image's
 * `npm ci` installs from. Only the lock: nothing needs node_modules here.
 */
export async function scaffoldWithPackages(root: string, name: string, packages: string[]): Promise<string> {
  const dir = await initTemplate(root, name, 'rest-api', undefined, { vendor: true });
  await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', ...packages], dir);
  return dir;
}

/**
 * `podman build --pull=never`: the base image is the local stand-in. Behind this machine's
 * TLS-intercepting proxy, npm in the build needs its CA: passed as the build secret the Dockerfile
 * reads (podman passes the proxy variables into the build by itself).
 */
export async function buildImage(dir: string, tag: string): Promise<PodmanRun & { ms: number }> {
  const started = performance.now();
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const secret = ca ? ['--secret', `id=npm_ca,src=${ca}`] : [];
  // No layer cache: every run installs with npm ci as a user's first build does, and leaves no intermediate images behind.
  const build = await podman(['build', '--pull=never', '--layers=false', ...secret, '-t', tag, dir]);
  return { ...build, ms: performance.now() - started };
}

/** A container started in the background, attached: what it prints as it prints it, and its end. */
export interface Container extends WatchedOutput {
  name: string;
}

/** `podman run --name NAME runArgs… IMAGE args…`. */
export function startContainer(name: string, runArgs: string[], image: string, args: string[] = []): Container {
  const child = spawn('podman', ['run', '--name', name, ...runArgs, image, ...args], {
    env: podmanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  return { name, ...watchOutput(child, `the container ${name}`) };
}

/** Files the container changed, added or deleted, from `podman diff`: its paths. */
export async function changedPaths(container: string): Promise<string[]> {
  const out = await podmanOk(['diff', '--format', 'json', container]);
  const diff = JSON.parse(out) as { changed?: string[]; added?: string[]; deleted?: string[] };
  return [...(diff.changed ?? []), ...(diff.added ?? []), ...(diff.deleted ?? [])];
}

/** A set-up command run to its end; fails with what it printed when it does not exit 0. */
async function run(command: string, args: string[], cwd: string): Promise<void> {
  const { code, output } = await runToEnd(command, args, { cwd });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`);
}
