import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { authenticate, type SourceClients } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { createCa, issueServer } from '../../test/peers/certificates.js';
import { start as startMariadb } from '../../test/peers/mariadb.js';
import { start as startVsftpd } from '../../test/peers/vsftpd.js';

/**
 * Time to verdict on a wrong password, for the mysql and ftp sources, against real servers on
 * loopback (test/peers: MariaDB over verified TLS, vsftpd with explicit FTPS), each beside the raw
 * client's own connect with the same wrong password in the same run (mysql2's createConnection,
 * basic-ftp's access), median of several:
 *
 * - in process: `authenticate` + `probe` until the classified error, against the raw connect until
 *   its rejection;
 * - whole command: `connector-auth probe` in a project (Node's start, the CLI, the source loaded, the
 *   verdict printed), against `node` running the raw connect alone.
 *
 * vsftpd's refusal waits for PAM's delay after a failed password (about 2 s, pam_faildelay), in both
 * columns: the ratio, not the time, is the figure for ftp.
 *
 *   npx tsx bench/credentials/wrong-credential.ts
 */

const BIN = fileURLToPath(new URL('../../bin/connector-auth.js', import.meta.url));
const WRONG = 'Wr0ng-bench/+pw?&x';

export async function run(options: { rounds?: number } = {}): Promise<Record<string, number>> {
  const rounds = options.rounds ?? 7;
  const ca = createCa();
  const certificate = issueServer(ca, { hosts: ['127.0.0.1'] });
  const [db, ftp] = await Promise.all([
    startMariadb({ ssl: certificate, database: 'sales', users: [{ name: 'alice', password: 'Right-bench-pw-1' }] }),
    startVsftpd({ tls: 'explicit', certificate }),
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'connector-auth-bench-wrong-'));
  try {
    const sources: Record<'mysql' | 'ftp', { config: Record<string, string>; raw: string }> = {
      mysql: {
        config: {
          auth_method: 'password',
          host: db.host,
          port: String(db.port),
          database: 'sales',
          user: 'alice',
          password: WRONG,
          tls_ca_certificate: ca.certificatePem,
        },
        raw: `const { default: mysql } = await import('mysql2/promise');
await mysql.createConnection({ host: '${db.host}', port: ${db.port}, user: 'alice', password: ${JSON.stringify(WRONG)}, database: 'sales', ssl: { ca: ${JSON.stringify(ca.certificatePem)}, rejectUnauthorized: true } }).then(() => { throw new Error('accepted'); }, (e) => { if (e.errno !== 1045) throw e; });`,
      },
      ftp: {
        config: {
          auth_method: 'password',
          host: ftp.host,
          port: String(ftp.port),
          username: ftp.user,
          password: WRONG,
          tls_ca_certificate: ca.certificatePem,
        },
        raw: `const { Client } = await import('basic-ftp');
const client = new Client(10000);
await client.access({ host: '${ftp.host}', port: ${ftp.port}, user: '${ftp.user}', password: ${JSON.stringify(WRONG)}, secure: true, secureOptions: { ca: ${JSON.stringify(ca.certificatePem)} } }).then(() => { throw new Error('accepted'); }, (e) => { if (e.code !== 530) throw e; }).finally(() => client.close());`,
      },
    };
    const figures: Record<string, number> = {};
    for (const [name, { config, raw }] of Object.entries(sources) as ['mysql' | 'ftp', (typeof sources)['mysql']][]) {
      const rawFile = join(dir, `${name}-raw.mjs`);
      // Resolved from the repository, where mysql2 and basic-ftp are installed.
      await writeFile(
        rawFile,
        raw.replace(/import\('([^']+)'\)/g, (_, m: string) => `import('${import.meta.resolve(m)}')`),
      );
      const project = join(dir, name);
      await mkdir(project);
      await writeFile(join(project, 'configuration.json'), JSON.stringify(config));
      await writeFile(
        join(project, 'connector.ts'),
        `import { defineConnector } from 'connector-auth';\nexport default defineConnector({ source: '${name}', async update() {} });\n`,
      );

      const ours = await medianMs(rounds, async () => {
        const auth = await authenticate(config, {
          source: name as keyof SourceClients,
          registry: new SecretRegistry(),
        });
        try {
          await auth.probe();
          throw new Error('accepted');
        } catch (error) {
          if ((error as { exitCode?: number }).exitCode !== 3) throw error;
        } finally {
          await auth.close();
        }
      });
      const rawMs = await medianMs(rounds, async () => {
        await import(`${pathToFileURL(rawFile).href}?${Math.random()}`);
      });
      const cli = await medianMs(rounds, async () => {
        const result = spawnSync(process.execPath, [BIN, 'probe', project], { encoding: 'utf8' });
        if (result.status !== 3) throw new Error(`probe exited ${result.status}: ${result.stderr}`);
      });
      const rawProcess = await medianMs(rounds, async () => {
        const result = spawnSync(process.execPath, [rawFile], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`raw client exited ${result.status}: ${result.stderr}`);
      });
      Object.assign(figures, {
        [`wrong_${name}_verdict_ms`]: ours,
        [`wrong_${name}_raw_connect_ms`]: rawMs,
        [`wrong_${name}_verdict_over_raw`]: Number((ours / rawMs).toFixed(2)),
        [`wrong_${name}_cli_probe_ms`]: cli,
        [`wrong_${name}_raw_process_ms`]: rawProcess,
        [`wrong_${name}_cli_over_raw_process`]: Number((cli / rawProcess).toFixed(2)),
      });
    }
    return figures;
  } finally {
    await Promise.all([db.stop(), ftp.stop()]);
    await rm(dir, { recursive: true, force: true });
  }
}

async function medianMs(rounds: number, work: () => Promise<void>): Promise<number> {
  await work(); // warm: modules loaded, server caches filled
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]! * 10) / 10;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) console.log(JSON.stringify(await run(), null, 2));
