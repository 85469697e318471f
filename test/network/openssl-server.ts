import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../peers/nginx.js';

/**
 * `openssl s_server -Verify` as a TLS peer that, unlike nginx, refuses a missing or untrusted client
 * certificate inside the handshake with a TLS alert (as Apache, Envoy, Go and most API gateways
 * do). `-www` answers GET with a status page, so an accepted certificate gets HTTP 200.
 */

export const OPENSSL_HINT = 'openssl is not installed: apt-get install -y openssl';

export interface OpensslServer {
  url: string;
  stop(): Promise<void>;
}

export async function startOpensslServer(options: {
  certificatePem: string;
  keyPem: string;
  clientCaPem: string;
  version: 'tls1_2' | 'tls1_3';
}): Promise<OpensslServer> {
  if (spawnSync('openssl', ['version']).status !== 0) throw new Error(OPENSSL_HINT);
  const dir = await mkdtemp(join(tmpdir(), 'connector-auth-s_server-'));
  await writeFile(join(dir, 'server.crt'), options.certificatePem);
  await writeFile(join(dir, 'server.key'), options.keyPem, { mode: 0o600 });
  await writeFile(join(dir, 'ca.crt'), options.clientCaPem);
  const port = await freePort();
  const child = spawn(
    'openssl',
    [
      's_server',
      '-accept',
      `127.0.0.1:${port}`,
      '-cert',
      join(dir, 'server.crt'),
      '-key',
      join(dir, 'server.key'),
      '-CAfile',
      join(dir, 'ca.crt'),
      '-Verify',
      '2',
      '-verify_return_error',
      '-www',
      '-quiet',
      `-${options.version}`,
    ],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 5_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error('openssl s_server did not start');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `https://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
