import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, spawnDaemon, startInTempDir, stopAndRemove } from './daemon.js';

/**
 * A real SPNEGO acceptor: Apache (Debian's apache2-bin) with mod_auth_gssapi, in a temp directory,
 * on 127.0.0.1 at an ephemeral port. Every file under it asks `Negotiate` (RFC 4559) and accepts a
 * ticket for the service keytab's principal (`HTTP/127.0.0.1@realm`); the access log records the
 * client principal of each request, which is how a test sees who was authenticated.
 *
 * As root, Apache's children run as www-data, so the directory is theirs; as anyone else, theirs.
 */

export interface ApacheGssapiPeer {
  /** `http://127.0.0.1:port/` */
  baseUrl: string;
  /** The principals of the requests answered so far, with the status: `alice@REALM GET /health 200`. */
  accessLog(): Promise<string[]>;
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';

export async function start(options: {
  /** The keytab of `HTTP/127.0.0.1@realm`. */
  keytab: Buffer;
  /** krb5.conf text for the acceptor (only its realm matters: an acceptor asks no KDC). */
  krb5Config: string;
  /** Files served, path → JSON text. */
  files: Record<string, string>;
}): Promise<ApacheGssapiPeer> {
  if (!existsSync(APACHE) || !existsSync(join(MODULES, 'mod_auth_gssapi.so')))
    throw new Error(
      'Apache with mod_auth_gssapi is missing: npm test installs apache2-bin and libapache2-mod-auth-gssapi',
    );
  const owner = childUser();
  return startInTempDir('connector-auth-apache-', async (dir, track) => {
    const www = join(dir, 'www');
    await mkdir(www);
    for (const [path, body] of Object.entries(options.files)) await writeFile(join(www, path), body);
    await writeFile(join(dir, 'http.keytab'), options.keytab, { mode: 0o600 });
    await writeFile(join(dir, 'krb5.conf'), options.krb5Config);
    if (owner) {
      for (const path of [dir, www, join(dir, 'http.keytab'), join(dir, 'krb5.conf')])
        await chown(path, owner.uid, owner.gid);
      for (const path of Object.keys(options.files)) await chown(join(www, path), owner.uid, owner.gid);
    }
    const port = await freePort();
    await writeFile(join(dir, 'httpd.conf'), configuration(dir, port, owner !== undefined));
    const running = track(
      spawnDaemon(APACHE, ['-f', join(dir, 'httpd.conf'), '-D', 'FOREGROUND'], {
        stopSignal: 'SIGTERM',
        env: { ...process.env, KRB5_CONFIG: join(dir, 'krb5.conf'), KRB5RCACHEDIR: dir },
      }),
    );
    const errorLog = async () => (existsSync(join(dir, 'error.log')) ? readFile(join(dir, 'error.log'), 'utf8') : '');
    if (!(await running.until(async () => /resuming normal operations/.test(await errorLog()), 15_000)))
      throw new Error(`apache did not start: ${running.log()} ${await errorLog()}`);
    return {
      baseUrl: `http://127.0.0.1:${port}/`,
      async accessLog() {
        const path = join(dir, 'access.log');
        return existsSync(path) ? (await readFile(path, 'utf8')).split('\n').filter(Boolean) : [];
      },
      errorLog,
      async stop() {
        await stopAndRemove(running, dir);
      },
    };
  });
}

function configuration(dir: string, port: number, asRoot: boolean): string {
  return `ServerRoot "${dir}"
DefaultRuntimeDir "${dir}"
PidFile "${dir}/httpd.pid"
Listen 127.0.0.1:${port}
ServerName 127.0.0.1
ErrorLog "${dir}/error.log"
LogLevel info
LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule auth_gssapi_module ${MODULES}/mod_auth_gssapi.so
LoadModule mime_module ${MODULES}/mod_mime.so
TypesConfig /dev/null
${asRoot ? 'User www-data\nGroup www-data' : ''}
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MinSpareThreads 1
MaxSpareThreads 8
MaxRequestWorkers 8
LogFormat "%u %m %U %>s" principal
CustomLog "${dir}/access.log" principal
DocumentRoot "${dir}/www"
<Directory "${dir}/www">
  ForceType application/json
  AuthType GSSAPI
  AuthName "connector-auth test"
  GssapiCredStore keytab:${dir}/http.keytab
  GssapiAllowedMech krb5
  GssapiBasicAuth Off
  Require valid-user
</Directory>
`;
}

/** As root: www-data's ids (Apache's children run as that user); otherwise undefined. */
function childUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'www-data'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error('Apache needs the www-data user to run its children as root');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
