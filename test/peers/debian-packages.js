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

/** A module that starts a peer (path under test/) → the package it runs, or the packages. */
export const PEER_PACKAGES = {
  'peers/nginx.ts': { package: 'nginx', present: onPath('/usr/sbin/nginx', '/usr/local/sbin/nginx') },
  'peers/sshd.ts': { package: 'openssh-server', present: onPath('/usr/sbin/sshd', '/usr/local/sbin/sshd') },
  'peers/postgres.ts': { package: 'postgresql-15', present: onPath('/usr/lib/postgresql/15/bin/postgres') },
  'network/openssl-server.ts': { package: 'openssl', present: onPath('/usr/bin/openssl', '/usr/local/bin/openssl') },
  // A real browser for `authorize` (driven by playwright-core, which downloads none of its own).
  'peers/chromium.ts': { package: 'chromium', present: onPath('/usr/bin/chromium') },
  // An MIT realm made by the test; kinit makes the credential caches the tests use, faketime moves a
  // KDC's clock, and libkrb5-dev's headers build the optional `kerberos` addon (rebuilt by provision.js).
  'peers/kdc.ts': [
    { package: 'krb5-kdc', present: onPath('/usr/sbin/krb5kdc') },
    { package: 'krb5-admin-server', present: onPath('/usr/sbin/kadmin.local') },
    { package: 'krb5-user', present: onPath('/usr/bin/kinit') },
    { package: 'faketime', present: onPath('/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1') },
    { package: 'libkrb5-dev', present: onPath('/usr/include/gssapi/gssapi.h') },
  ],
  // A real SPNEGO acceptor: Apache's mod_auth_gssapi (nginx has no SPNEGO module in Debian).
  'peers/apache-gssapi.ts': [
    { package: 'apache2-bin', present: onPath('/usr/sbin/apache2') },
    { package: 'libapache2-mod-auth-gssapi', present: onPath('/usr/lib/apache2/modules/mod_auth_gssapi.so') },
  ],
  // HTTP Digest: Apache's mod_auth_digest (MD5, in apache2-bin itself) and lighttpd (SHA-256, which
  // mod_auth_digest does not answer).
  'peers/apache-digest.ts': { package: 'apache2-bin', present: onPath('/usr/sbin/apache2') },
  'peers/lighttpd-digest.ts': { package: 'lighttpd', present: onPath('/usr/sbin/lighttpd') },
  'peers/vsftpd.ts': { package: 'vsftpd', present: onPath('/usr/sbin/vsftpd') },
  // The container engine the image tests build and run the project's image with (root, runc), and
  // uidmap, which podman wants for its user namespaces.
  'peers/podman.ts': [
    { package: 'podman', present: onPath('/usr/bin/podman') },
    { package: 'runc', present: onPath('/usr/sbin/runc', '/usr/bin/runc') },
    { package: 'uidmap', present: onPath('/usr/bin/newuidmap') },
  ],
  // Debian's root file system for the stand-in of Node's base image (no image registry is reachable).
  'peers/node-base-image.ts': { package: 'debootstrap', present: onPath('/usr/sbin/debootstrap') },
  // mariadb-install-db and mariadbd, run as the tests' own instance in a temp dir, and its PAM plugin
  // (the one server plugin that asks a client for mysql_clear_password, as cloud databases do).
  // mariadb-server-core alone has mariadbd without the plugin: both are checked.
  'peers/mariadb.ts': [
    { package: 'mariadb-server', present: onPath('/usr/sbin/mariadbd') },
    { package: 'mariadb-server', present: onPath('/usr/lib/mysql/plugin/auth_pam.so') },
  ],
};

/** [module, peer] for every package a module needs. */
export function peerEntries(peers = PEER_PACKAGES) {
  return Object.entries(peers).flatMap(([module, needs]) =>
    (Array.isArray(needs) ? needs : [needs]).map((peer) => [module, peer]),
  );
}
