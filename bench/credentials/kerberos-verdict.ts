import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli } from '../../test/helpers/cli.js';
import * as kdc from '../../test/peers/kdc.js';
import { postgresBinDir, start as startPostgres } from '../../test/peers/postgres.js';

/**
 * Kerberos to PostgreSQL: the time to a verdict, through the built CLI (process start included), beside
 * MIT's own tools doing the same network work in the same run, against a real krb5kdc and PostgreSQL.
 *
 * - wrong keytab (the principal's key changed since): `connector-auth probe` until exit 3, against
 *   `kinit -k -t` with the same keytab until it fails (one AS exchange, the KDC's "preauth failed");
 * - good keytab: `connector-auth probe` (ticket, GSSAPI login, SELECT 1) against `kinit` + `psql`
 *   logging in by GSSAPI with the ticket (libpq's own GSS).
 *
 * Medians of RUNS runs each, alternating. Two CLI baselines in the same loop: `connector-auth version`
 * (Node and the CLI starting), and a `password` probe of a closed port (the same project, configuration
 * and pg loaded, no authentication at all): what the Kerberos verdict adds is the difference.
 *
 *   npx tsx bench/credentials/kerberos-verdict.ts      (after npm run build)
 */

const RUNS = 7;

export async function run(): Promise<Record<string, number>> {
  const realm = await kdc.start();
  const dir = await mkdtemp(join(tmpdir(), 'connector-auth-bench-krb5-'));
  try {
    for (const name of ['alice', 'carol', 'postgres/127.0.0.1']) await realm.addPrincipal(name);
    const files: Record<string, string> = {};
    const keytabs: Record<string, Buffer> = {};
    for (const name of ['alice', 'carol', 'postgres/127.0.0.1']) {
      keytabs[name] = await realm.keytab(name);
      files[name] = join(dir, `${name.replace('/', '_')}.keytab`);
      await writeFile(files[name], keytabs[name]);
    }
    await realm.changeKey('carol');
    const server = await startPostgres({
      password: 'bench-admin-pw-1',
      database: 'app',
      ssl: false,
      gss: { keytab: keytabs['postgres/127.0.0.1']!, realm: kdc.REALM, users: ['alice', 'carol'] },
    });
    try {
      const project = join(dir, 'project');
      await cli(['init', project, '--template', 'database']);
      const configure = (principal: string) =>
        writeFile(
          join(project, 'configuration.json'),
          JSON.stringify({
            auth_method: 'kerberos',
            kerberos_principal: `${principal}@${kdc.REALM}`,
            kerberos_keytab: keytabs[principal]!.toString('base64'),
            kerberos_realm_kdc: realm.address,
            host: '127.0.0.1',
            port: String(server.port),
            database: 'app',
            user: principal,
            sslmode: 'disable',
            table: 'public.orders',
          }),
        );
      const probe = async (principal: string, expected: number) => {
        await configure(principal);
        const run = await cli(['probe', project]);
        if (run.code !== expected)
          throw new Error(`probe as ${principal}: exit ${run.code}, expected ${expected}: ${run.stderr}`);
        return run.ms;
      };
      const cache = `FILE:${join(dir, 'ccache')}`;
      const env = { ...realm.env(), KRB5CCNAME: cache };
      const timed = (command: string, args: string[], expectOk: boolean, extraEnv: NodeJS.ProcessEnv = {}) => {
        const started = performance.now();
        const result = spawnSync(command, args, { env: { ...env, ...extraEnv }, encoding: 'utf8' });
        const ms = performance.now() - started;
        if ((result.status === 0) !== expectOk) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
        return ms;
      };
      const kinit = (principal: string, ok: boolean) =>
        timed('kinit', ['-k', '-t', files[principal]!, `${principal}@${kdc.REALM}`], ok);
      const psql = join(postgresBinDir(), 'psql');
      const kinitAndPsql = () =>
        kinit('alice', true) +
        timed(
          psql,
          ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'alice', '-d', 'app', '-Atc', 'SELECT 1'],
          true,
          {
            PGGSSENCMODE: 'disable',
            PGSSLMODE: 'disable',
          },
        );

      const wrongVerdict: number[] = [];
      const wrongKinit: number[] = [];
      const okProbe: number[] = [];
      const okRaw: number[] = [];
      const start: number[] = [];
      const closedPort: number[] = [];
      await probe('alice', 0); // warm the compile cache: a user's second run
      for (let i = 0; i < RUNS; i++) {
        wrongVerdict.push(await probe('carol', 3));
        wrongKinit.push(kinit('carol', false));
        okProbe.push(await probe('alice', 0));
        okRaw.push(kinitAndPsql());
        start.push((await cli(['version'])).ms);
        await writeFile(
          join(project, 'configuration.json'),
          JSON.stringify({
            auth_method: 'password',
            password: 'bench-pw-0001',
            host: '127.0.0.1',
            port: '1',
            database: 'app',
            user: 'alice',
            sslmode: 'disable',
            table: 'public.orders',
          }),
        );
        closedPort.push((await cli(['probe', project])).ms);
      }
      const [verdict, raw, probeMs, rawOk, startMs, closedMs] = [
        wrongVerdict,
        wrongKinit,
        okProbe,
        okRaw,
        start,
        closedPort,
      ].map(median) as [number, number, number, number, number, number];
      return {
        kerberos_wrong_keytab_verdict_ms: round(verdict),
        kerberos_wrong_keytab_kinit_ms: round(raw),
        kerberos_wrong_keytab_ratio: round(verdict / raw, 2),
        kerberos_postgres_probe_ms: round(probeMs),
        kerberos_postgres_kinit_psql_ms: round(rawOk),
        kerberos_postgres_probe_ratio: round(probeMs / rawOk, 2),
        kerberos_cli_start_ms: round(startMs),
        kerberos_closed_port_password_probe_ms: round(closedMs),
        kerberos_wrong_keytab_verdict_beyond_closed_port_ms: round(verdict - closedMs),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await realm.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(JSON.stringify(await run(), null, 2));
