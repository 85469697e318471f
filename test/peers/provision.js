// Provisioning of the Debian packages behind the test peers, for scripts/test.js (plain JavaScript:
// it runs before anything is built). Installs what is missing when it can (root, apt-get), and
// otherwise finds the test files that cannot run without it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PEER_PACKAGES, peerEntries } from './debian-packages.js';

/** Installs missing packages when it can; answers package → why it cannot be had (empty: all there). */
export function ensurePackages(
  peers = PEER_PACKAGES,
  { uid = process.getuid?.(), hasApt = existsSync('/usr/bin/apt-get') } = {},
) {
  const all = peerEntries(peers).map(([, peer]) => peer);
  const missing = [...new Set(all.filter((p) => !p.present()).map((p) => p.package))];
  const unavailable = new Map();
  if (missing.length === 0) return unavailable;
  const reason = !hasApt
    ? 'not a Debian system (no apt-get): install it yourself'
    : uid !== 0
      ? 'installing it needs root: run `apt-get install` for it, or run the tests as root'
      : undefined;
  if (reason) {
    for (const name of missing) unavailable.set(name, reason);
    return unavailable;
  }
  const started = Date.now();
  process.stderr.write(`test peers: installing ${missing.join(', ')} from Debian's packages (once per machine)… `);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=120', ...args], { env, encoding: 'utf8' });
  const update = apt(['update', '-qq']);
  const install = update.status === 0 ? apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]) : update;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (install.status === 0) process.stderr.write(`done in ${seconds} s\n`);
  else process.stderr.write(`failed after ${seconds} s:\n${(install.stderr || install.stdout || '').trim()}\n`);
  for (const peer of all) {
    if (peer.present()) continue;
    unavailable.set(
      peer.package,
      install.status === 0
        ? 'installed, but its program is not where the tests look'
        : 'apt-get install failed (see above)',
    );
  }
  return unavailable;
}

/** The test files (relative to root) that reach, through relative imports, a peer whose package is unavailable. */
export function filesNeeding(root, unavailable, peers = PEER_PACKAGES) {
  const testDir = join(root, 'test');
  const peerOf = new Map();
  for (const [module, peer] of peerEntries(peers)) {
    if (unavailable.has(peer.package))
      peerOf.set(join(testDir, module), [...(peerOf.get(join(testDir, module)) ?? []), peer.package]);
  }
  const cache = new Map();
  const needs = (file, seen) => {
    if (peerOf.has(file)) return peerOf.get(file);
    if (seen.has(file)) return [];
    seen.add(file);
    return importsOf(file, cache).flatMap((next) => needs(next, seen));
  };
  return testFiles(testDir)
    .map((file) => ({ file: relative(root, file), packages: [...new Set(needs(file, new Set()))] }))
    .filter((entry) => entry.packages.length > 0);
}

export function skippedReport(skipped, unavailable, allowed) {
  const lines = skipped.map(
    ({ file, packages }) => `  ${file}: needs ${packages.map((p) => `${p} (${unavailable.get(p)})`).join(', ')}`,
  );
  return (
    `\n${skipped.length} test file(s) skipped: a peer they start could not be had:\n${lines.join('\n')}\n` +
    (allowed
      ? 'CONNECTOR_AUTH_ALLOW_MISSING_PEERS=1: accepted as a partial run.\n'
      : 'The run is not complete, so it fails; set CONNECTOR_AUTH_ALLOW_MISSING_PEERS=1 to accept a partial run.\n')
  );
}

function importsOf(file, cache) {
  if (!cache.has(file)) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const specifiers = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
    cache.set(
      file,
      specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))),
    );
  }
  return cache.get(file);
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The optional `kerberos` addon builds against libkrb5-dev's headers. On a machine where `npm ci` ran
 * before they were installed, npm dropped it (an optional dependency whose build failed): once the
 * headers are here, it is built (`npm rebuild kerberos`) or, when npm removed it, installed at the
 * version package.json pins. Marks libkrb5-dev unavailable when that fails, so the Kerberos tests
 * are listed as skipped rather than failing one by one.
 */
export function ensureKerberosAddon(root, unavailable, { headers = existsSync('/usr/include/gssapi/gssapi.h') } = {}) {
  if (!headers || unavailable.has('libkrb5-dev')) return;
  const dir = join(root, 'node_modules', 'kerberos');
  if (existsSync(join(dir, 'build', 'Release', 'kerberos.node'))) return;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const version = pkg.optionalDependencies?.kerberos;
  const args = existsSync(dir)
    ? ['rebuild', 'kerberos']
    : ['install', '--no-save', '--no-audit', '--no-fund', `kerberos@${version}`];
  const started = Date.now();
  process.stderr.write(`test peers: building the kerberos addon against libkrb5-dev (npm ${args[0]} kerberos)… `);
  const npm = spawnSync('npm', args, { cwd: root, encoding: 'utf8' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (npm.status === 0 && existsSync(join(dir, 'build', 'Release', 'kerberos.node'))) {
    process.stderr.write(`done in ${seconds} s\n`);
    return;
  }
  process.stderr.write(`failed after ${seconds} s:\n${(npm.stderr || npm.stdout || '').trim()}\n`);
  unavailable.set('libkrb5-dev', 'installed, but the kerberos addon did not build against it (see above)');
}
