import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessLogLines, freePort, portOpen, spawnDaemon } from './daemon.js';

/**
 * A real nginx (Debian's package) for mutual TLS: its own configuration in a temp directory,
 * `ssl_verify_client on` against a test CA, listening on 127.0.0.1 at an ephemeral port. A second,
 * plain listener serves `stub_status`, whose `accepts` counter proves whether a client connected at
 * all (an aborted handshake never reaches the access log).
 *
 * Like nginx in front of many APIs, it completes the handshake whatever the client presents and
 * answers 400 "No required SSL certificate was sent" or "The SSL certificate error" itself.
 */

export interface NginxOptions {
  /** PEM server certificate chain (leaf first) and key. */
  serverCertificatePem: string;
  serverKeyPem: string;
  /** PEM of the CA(s) whose client certificates are accepted. */
  clientCaPem: string;
  /** `on` (default), `optional` or `off`. */
  verifyClient?: 'on' | 'optional' | 'off';
  /** When set, `/bearer` also requires `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

export interface AccessLogLine {
  status: number;
  /** nginx's $ssl_client_verify: SUCCESS, NONE or FAILED:<reason>. */
  verify: string;
  subject: string;
  connection: number;
  request: string;
}

export interface NginxPeer {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** TCP connections accepted by the TLS listener so far (status requests excluded). */
  connectionsAccepted(): Promise<number>;
  /** The requests answered so far; with `atLeast`, once that many lines are written. */
  accessLog(atLeast?: number): Promise<AccessLogLine[]>;
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

export const INSTALL_HINT =
  'nginx is not installed: npm test installs it as root on Debian; else apt-get install -y nginx';

export function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'])
    if (existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(INSTALL_HINT);
}

export async function start(options: NginxOptions): Promise<NginxPeer> {
  const binary = nginxBinary();
  const dir = await mkdtemp(join(tmpdir(), 'connector-auth-nginx-'));
  await mkdir(join(dir, 'temp'), { recursive: true });
  const [port, statusPort] = [await freePort(), await freePort()];
  await writeFile(join(dir, 'server.crt'), options.serverCertificatePem);
  await writeFile(join(dir, 'server.key'), options.serverKeyPem, { mode: 0o600 });
  await writeFile(join(dir, 'client-ca.crt'), options.clientCaPem);
  await writeFile(join(dir, 'nginx.conf'), configuration(dir, port, statusPort, options));

  const server = spawnDaemon(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]);
  const ready = await server.until(() => portOpen(statusPort), 10_000);
  if (!ready || !(await server.until(() => portOpen(port), 2_000))) {
    server.kill();
    const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
    await rm(dir, { recursive: true, force: true });
    throw new Error(`nginx did not start: ${server.log()}${log}`);
  }

  // One fresh connection per status request (agent: false), so each adds exactly one accept.
  const status = (): Promise<number> =>
    new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port: statusPort, path: '/status', agent: false }, (response) => {
        let text = '';
        response.on('data', (d: Buffer) => (text += d.toString()));
        response.on('end', () => resolve(Number(/\n\s*(\d+)\s+\d+\s+\d+/.exec(text)?.[1] ?? NaN)));
      }).on('error', reject);
    });
  // The readiness checks connected too: count from here.
  const baseline = await status();
  let statusRequests = 0;

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    async connectionsAccepted() {
      // `accepts` counts both listeners; each status request is one connection of its own.
      statusRequests++;
      return (await status()) - baseline - statusRequests;
    },
    async accessLog(atLeast?: number) {
      return (await accessLogLines(join(dir, 'access.log'), atLeast)).map((line) => {
        const [status, verify, subject, connection, request] = line.split('\t');
        return {
          status: Number(status),
          verify: verify!,
          subject: subject!,
          connection: Number(connection),
          request: request!,
        };
      });
    },
    errorLog: () => readFile(join(dir, 'error.log'), 'utf8').catch(() => ''),
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function configuration(dir: string, port: number, statusPort: number, options: NginxOptions): string {
  const bearer = options.bearerToken
    ? `location = /bearer {
        default_type application/json;
        if ($http_authorization != "Bearer ${options.bearerToken}") { return 401 '{"error":"bearer token required"}'; }
        return 200 '{"ok":true,"client":"$ssl_client_s_dn"}';
      }`
    : '';
  return `
${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 256; }
http {
  log_format probe '$status\\t$ssl_client_verify\\t$ssl_client_s_dn\\t$connection\\t$request';
  access_log ${dir}/access.log probe;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/server.crt;
    ssl_certificate_key ${dir}/server.key;
    ssl_client_certificate ${dir}/client-ca.crt;
    ssl_verify_client ${options.verifyClient ?? 'on'};
    ssl_verify_depth 4;
    location = /health {
      default_type application/json;
      return 200 '{"ok":true,"client":"$ssl_client_s_dn"}';
    }
    ${bearer}
    location / { default_type text/plain; return 200 'ok'; }
  }
  server {
    listen 127.0.0.1:${statusPort};
    access_log off;
    location = /status { stub_status; }
  }
}
`;
}
