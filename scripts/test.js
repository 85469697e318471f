#!/usr/bin/env node
// `npm test` after the build: bring up what the test peers need, then run vitest.
//
// The integration tests start real servers (PostgreSQL, OpenSSH's sshd, nginx, openssl s_server)
// from Debian's packages. A fresh machine may lack some: as root on Debian they are installed here,
// once per machine (a second run finds them and says nothing). Where a package cannot be had (not
// root, no apt-get, the install failed), the test files that need it are not run and are listed as
// skipped with the reason. Such a run exits 1 all the same: a green run means every test ran. Set
// CONNECTOR_AUTH_ALLOW_MISSING_PEERS=1 to accept a partial run (exit 0, the list still printed).
// Arguments are passed to vitest (`npm test -- test/sources`).
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKerberosAddon, ensurePackages, filesNeeding, skippedReport } from '../test/peers/provision.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const unavailable = ensurePackages();
ensureKerberosAddon(root, unavailable);
const skipped = unavailable.size === 0 ? [] : filesNeeding(root, unavailable);
const code = await runVitest(skipped.map((s) => s.file));
const allowed = process.env.CONNECTOR_AUTH_ALLOW_MISSING_PEERS === '1';
if (skipped.length > 0) process.stderr.write(skippedReport(skipped, unavailable, allowed));
process.exitCode = code !== 0 || skipped.length === 0 ? code : allowed ? 0 : 1;

function runVitest(excluded) {
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [vitest, 'run', ...excluded.flatMap((file) => ['--exclude', file]), ...process.argv.slice(2)];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0)));
  });
}
