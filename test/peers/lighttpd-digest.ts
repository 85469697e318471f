import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DIGEST_REALM } from './apache-digest.js';
import { accessLogLines, portOpen, spawnDaemon, spawnOnFreePort, startInTempDir, stopAndRemove } from './daemon.js';

/**
 * A real HTTP Digest server that answers SHA-256 (RFC 7616), which Apache's mod_auth_digest does
 * not: lighttpd (Debian's lighttpd) with mod_auth, its users in a plain `user:password` file. The
 * access log records the user of each request, as the Apache peer's does.
 */

export interface LighttpdDigestPeer {
  baseUrl: string;
  accessLog(atLeast?: number): Promise<string[]>;
  stop(): Promise<void>;
}

const LIGHTTPD = '/usr/sbin/lighttpd';

export async function start(options: {
  users: Record<string, string>;
  files: Record<string, string>;
  algorithm: 'SHA-256' | 'MD5';
}): Promise<LighttpdDigestPeer> {
  if (!existsSync(LIGHTTPD)) throw new Error('lighttpd is missing: npm test installs lighttpd');
  return startInTempDir('connector-auth-lighttpd-', async (dir, track) => {
    await mkdir(join(dir, 'www'));
    for (const [path, body] of Object.entries(options.files)) await writeFile(join(dir, 'www', path), body);
    const users = Object.entries(options.users).map(([user, password]) => `${user}:${password}\n`);
    await writeFile(join(dir, 'users'), users.join(''), { mode: 0o600 });
    const { daemon, port } = await spawnOnFreePort(
      'lighttpd',
      async (port) => {
        await writeFile(join(dir, 'lighttpd.conf'), configuration(dir, port, options.algorithm));
        return track(spawnDaemon(LIGHTTPD, ['-D', '-f', join(dir, 'lighttpd.conf')], { stopSignal: 'SIGTERM' }));
      },
      (daemon, port) => daemon.until(() => portOpen(port), 15_000),
      (log) => /address already in use/i.test(log),
    );
    const accessLog = join(dir, 'access.log');
    return {
      baseUrl: `http://127.0.0.1:${port}/`,
      accessLog: (atLeast?: number) => accessLogLines(accessLog, atLeast),
      stop: () => stopAndRemove(daemon, dir),
    };
  });
}

function configuration(dir: string, port: number, algorithm: string): string {
  return `server.document-root = "${dir}/www"
server.bind = "127.0.0.1"
server.port = ${port}
server.errorlog = "${dir}/error.log"
server.modules = ("mod_auth", "mod_authn_file", "mod_accesslog")
accesslog.filename = "${dir}/access.log"
accesslog.format = "%u %m %U %>s"
mimetype.assign = ("" => "application/json")
auth.backend = "plain"
auth.backend.plain.userfile = "${dir}/users"
auth.require = ("/" => ("method" => "digest", "algorithm" => "${algorithm}", "realm" => "${DIGEST_REALM}", "require" => "valid-user"))
`;
}
