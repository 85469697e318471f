import { spawn } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initTemplate } from '../../helpers/cli.js';
import { watchOutput, type WatchedOutput } from '../../helpers/watched-output.js';
import { runToEnd } from '../../peers/daemon.js';
import { podman, podmanEnv, podmanOk, type PodmanRun } from '../../peers/podman.js';

/**
 * What the image tests share: a project laid out as `init` writes it for an image build, the build,
 * and the container run as each platform runs it.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OWN = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * A scaffolded project whose package.json installs connector-auth from a tarball inside it:
 * `vendor/connector-auth-<version>.tgz` (this checkout, packed), named in `dependencies` as
 * `file:vendor/…`, with DuckDB, TypeScript and Node's types as devDependencies, and a
 * package-lock.json to match — the layout `init` is to write (the packaging side of issue 38).
 * Until init writes it, this helper makes it; then it becomes `init` alone.
 * `dependencies` adds the connector's own packages (name → version range).
 */
export async function projectAsInitWritesIt(
  root: string,
  name: string,
  dependencies: Record<string, string> = {},
): Promise<string> {
  const dir = await initTemplate(root, name, 'rest-api');
  const vendor = join(dir, 'vendor');
  await mkdir(vendor);
  await run('npm', ['pack', '--pack-destination', vendor, '--silent'], ROOT);
  const [tarball] = await readdir(vendor);
  if (tarball !== `connector-auth-${OWN.version}.tgz`) throw new Error(`npm pack wrote ${tarball}`);
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  manifest.dependencies = { 'connector-auth': `file:vendor/${tarball}`, ...dependencies };
  manifest.devDependencies = {
    '@duckdb/node-api': OWN.dependencies['@duckdb/node-api'],
    '@types/node': OWN.devDependencies['@types/node'],
    typescript: OWN.devDependencies.typescript,
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The lock only: the image's `npm ci` installs; nothing needs node_modules here.
  await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], dir);
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
