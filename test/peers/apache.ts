import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accessLogLines, freePort, spawnDaemon, startInTempDir, stopAndRemove } from './daemon.js';

/**
 * Debian's Apache (apache2-bin), in a temp directory, on 127.0.0.1 at an ephemeral port, serving
 * JSON files under one `<Directory>` that an auth module guards: mod_auth_gssapi (apache-gssapi.ts),
 * mod_auth_digest (apache-digest.ts). The access log records the user of each request, which is how
 * a test sees who was authenticated.
 *
 * As root, Apache's children run as www-data, so the directory is theirs; as anyone else, theirs.
 */

export interface ApachePeer {
  /** `http://127.0.0.1:port/` */
  baseUrl: string;
  /**
   * The users of the requests answered so far, with the status: `alice GET /health 200`; with
   * `atLeast`, once that many lines are written.
   */
  accessLog(atLeast?: number): Promise<string[]>;
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

const APACHE = '/usr/sbin/apache2';
export const APACHE_MODULES = '/usr/lib/apache2/modules';

export interface ApacheOptions {
  /** The temp directory's prefix. */
  prefix: string;
  /** The auth modules beyond the core ones, by name: `auth_gssapi`, `auth_digest`. */
  modules: readonly string[];
  /** Files served, path → JSON text. */
  files: Record<string, string>;
  /** Files beside the configuration (a keytab, a password file), written mode 0600. */
  privateFiles: Record<string, string | Buffer>;
  /** The auth lines of the `<Directory>` block, given the temp directory. */
  directory: (dir: string) => string;
  /** The variables Apache runs with, given the temp directory. */
  env?: (dir: string) => NodeJS.ProcessEnv;
}

export async function startApache(options: ApacheOptions): Promise<ApachePeer> {
  const owner = childUser();
  return startInTempDir(options.prefix, async (dir, track) => {
    const www = join(dir, 'www');
    await mkdir(www);
    const written = [dir, www];
    for (const [path, body] of Object.entries(options.files)) written.push(await put(join(www, path), body));
    for (const [path, body] of Object.entries(options.privateFiles))
      written.push(await put(join(dir, path), body, 0o600));
    if (owner) for (const path of written) await chown(path, owner.uid, owner.gid);
    const port = await freePort();
    await writeFile(join(dir, 'httpd.conf'), configuration(dir, port, owner !== undefined, options));
    const running = track(
      spawnDaemon(APACHE, ['-f', join(dir, 'httpd.conf'), '-D', 'FOREGROUND'], {
        stopSignal: 'SIGTERM',
        env: { ...process.env, ...options.env?.(dir) },
      }),
    );
    const errorLog = async () => (existsSync(join(dir, 'error.log')) ? readFile(join(dir, 'error.log'), 'utf8') : '');
    if (!(await running.until(async () => /resuming normal operations/.test(await errorLog()), 15_000)))
      throw new Error(`apache did not start: ${running.log()} ${await errorLog()}`);
    return {
      baseUrl: `http://127.0.0.1:${port}/`,
      accessLog: (atLeast?: number) => accessLogLines(join(dir, 'access.log'), atLeast),
      errorLog,
      async stop() {
        await stopAndRemove(running, dir);
      },
    };
  });
}

async function put(path: string, body: string | Buffer, mode?: number): Promise<string> {
  await writeFile(path, body, mode === undefined ? {} : { mode });
  return path;
}

/** Whether Apache and these modules are installed. */
export function apacheHas(modules: readonly string[]): boolean {
  return existsSync(APACHE) && modules.every((name) => existsSync(join(APACHE_MODULES, `mod_${name}.so`)));
}

function configuration(dir: string, port: number, asRoot: boolean, options: ApacheOptions): string {
  const load = (name: string) => `LoadModule ${name}_module ${APACHE_MODULES}/mod_${name}.so`;
  return `ServerRoot "${dir}"
DefaultRuntimeDir "${dir}"
PidFile "${dir}/httpd.pid"
Listen 127.0.0.1:${port}
ServerName 127.0.0.1
ErrorLog "${dir}/error.log"
LogLevel info
${['mpm_event', 'authn_core', 'authz_core', 'authz_user', ...options.modules, 'mime'].map(load).join('\n')}
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
${options.directory(dir)}
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
