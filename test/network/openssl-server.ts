import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portOpen, spawnDaemon } from '../peers/daemon.js';

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
  const server = spawnDaemon(
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
    { keepStdinOpen: true },
  );
  if (!(await server.until(() => portOpen(port), 5_000))) {
    server.kill();
    await rm(dir, { recursive: true, force: true });
    throw new Error(`openssl s_server did not start: ${server.log()}`);
  }
  return {
    url: `https://127.0.0.1:${port}`,
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
