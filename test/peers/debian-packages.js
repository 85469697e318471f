// The Debian packages behind the test peers: which peer module needs which package, and how to
// tell that it is installed. scripts/test.js reads this to install what is missing before the
// tests start, and to know which test files cannot run when a package cannot be had.
// Plain JavaScript so that it runs before anything is built.
import { existsSync } from 'node:fs';

/** @typedef {{ package: string, present: () => boolean }} DebianPeer */

const onPath =
  (...candidates) =>
  () =>
    candidates.some((path) => existsSync(path));

/** A module that starts a peer (path under test/) → the package it runs. */
export const PEER_PACKAGES = {
  'peers/nginx.ts': { package: 'nginx', present: onPath('/usr/sbin/nginx', '/usr/local/sbin/nginx') },
  'peers/sshd.ts': { package: 'openssh-server', present: onPath('/usr/sbin/sshd', '/usr/local/sbin/sshd') },
  'peers/postgres.ts': { package: 'postgresql-15', present: onPath('/usr/lib/postgresql/15/bin/postgres') },
  'network/openssl-server.ts': { package: 'openssl', present: onPath('/usr/bin/openssl', '/usr/local/bin/openssl') },
  // A real browser for `authorize` (driven by playwright-core, which downloads none of its own).
  'peers/chromium.ts': { package: 'chromium', present: onPath('/usr/bin/chromium') },
  'peers/vsftpd.ts': { package: 'vsftpd', present: onPath('/usr/sbin/vsftpd') },
  // mariadb-install-db and mariadbd, run as the tests' own instance in a temp dir.
  'peers/mariadb.ts': { package: 'mariadb-server', present: onPath('/usr/sbin/mariadbd') },
};
