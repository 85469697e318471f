import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, type CliRun } from '../helpers/cli.js';
import { postgresBinDir, start as startPostgres, type PostgresPeer } from '../peers/postgres.js';
import { start as startS3, type S3rverPeer } from '../peers/s3rver.js';
import { scratch, useLocalConfiguration } from './support.js';
import { startServe } from '../hosts/fivetran/support.js';

/**
 * Issue 24, point 3, and the README's promise: the steps of "Writing a connector", read from
 * README.md and run as written for every template, each against the local target its own
 * README names through its configuration.local.json: the emulator (its example REST API for
 * rest-api, the pipeline interface for pipeline-metadata), an S3-compatible server holding MinIO's
 * default credentials and the template's sample files (s3rver here: no MinIO binary on the test
 * machines), a PostgreSQL loaded with the template's sample-data.sql by psql. The one step that is
 * not a command, "edit configuration.json", is done as the comment says: configuration.local.json
 * copied over it, its address set to where the test's server listens.
 */

const run = promisify(execFile);
const README = new URL('../../README.md', import.meta.url);
const TEMPLATES = ['rest-api', 'pipeline-metadata', 'file-storage', 'database'] as const;
type Template = (typeof TEMPLATES)[number];

let emulator: RunningEmulator;
let s3: S3rverPeer;
let postgres: PostgresPeer;
let work: Awaited<ReturnType<typeof scratch>>;
const SUPERUSER_PASSWORD = 'readme-test-superuser-31c7';

beforeAll(async () => {
  [emulator, s3, postgres, work] = await Promise.all([
    startEmulator(),
    startS3({
      buckets: ['example-exports'],
      credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin' },
    }),
    startPostgres({ password: SUPERUSER_PASSWORD, database: 'unused', ssl: false }),
    scratch('writing-a-connector'),
  ]);
});
afterAll(async () => {
  await Promise.all([emulator?.stop(), s3?.stop(), postgres?.stop()]);
  await work?.remove();
});

/** The shell block under "## Writing a connector": its lines, comments kept (one of them is a step). */
async function readmeSteps(): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  const section = text.slice(text.indexOf('## Writing a connector'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no sh block under "Writing a connector"');
  return block.split('\n').filter((line) => line.trim() !== '');
}

/** Where each template's local target listens in this test: the "edit configuration.json" step. */
async function localTarget(template: Template, project: string): Promise<Record<string, string>> {
  switch (template) {
    case 'rest-api':
      return { base_url: emulator.exampleApiUrl };
    case 'pipeline-metadata':
      return { base_url: emulator.pipelineUrl };
    case 'file-storage': {
      // The template README's `mc cp --recursive sample-data/exports/ …/exports/`.
      const samples = join(project, 'sample-data', 'exports');
      await s3.putMany(
        'example-exports',
        await Promise.all(
          (await readdir(samples)).map(
            async (name) => [`exports/${name}`, await readFile(join(samples, name), 'utf8')] as [string, string],
          ),
        ),
      );
      return { endpoint: s3.endpoint };
    }
    case 'database':
      // The template README's `psql -h 127.0.0.1 -U postgres -d postgres -f sample-data.sql`, as this server's superuser.
      await run(
        join(postgresBinDir(), 'psql'),
        [
          '-v',
          'ON_ERROR_STOP=1',
          '-h',
          postgres.host,
          '-p',
          String(postgres.port),
          '-U',
          postgres.user,
          '-d',
          'postgres',
          '-f',
          'sample-data.sql',
        ],
        {
          cwd: project,
          env: { ...process.env, PGPASSWORD: SUPERUSER_PASSWORD },
        },
      );
      return { host: postgres.host, port: String(postgres.port) };
  }
}

describe('README "Writing a connector", verbatim, for every template', () => {
  it.each(TEMPLATES)(
    '%s',
    async (template) => {
      const steps = await readmeSteps();
      expect(steps[0]).toBe('connector-auth init my-connector --template rest-api');
      const root = join(work.root, template);
      await import('node:fs/promises').then((fs) => fs.mkdir(root));
      let cwd = root;
      const results: Array<{ step: string; result: CliRun }> = [];
      for (const line of steps) {
        const step = line.replace('--template rest-api', `--template ${template}`);
        if (step.startsWith('cd ')) {
          cwd = join(cwd, step.slice(3).trim());
          continue;
        }
        if (step.startsWith('# edit configuration.json')) {
          await useLocalConfiguration(cwd, await localTarget(template, cwd));
          continue;
        }
        if (step.startsWith('#')) continue;
        const command = step.replace(/\s+#.*$/, '');
        // `npm install` brings the project's own copy from vendor/: test/package/scaffold-install.test.ts
        // runs it for every template. Here each step runs this checkout's CLI, the copy init packed.
        if (command === 'npm install') continue;
        const args = /^(?:npx )?connector-auth (.+)$/.exec(command)?.[1];
        expect(args, command).toBeDefined();
        if (command === 'npx connector-auth serve') {
          // A server runs until it is stopped: on a free port (not 50051) until it listens, then
          // SIGTERM, after which it must exit 0.
          const serve = await startServe(cwd);
          expect(await serve.stop('SIGTERM'), `${template}: serve\n${serve.stdout()}\n${serve.stderr()}`).toBe(0);
          continue;
        }
        const result = await cli(args!.split(/\s+/), { cwd });
        results.push({ step: command, result });
        const authorize = command === 'npx connector-auth authorize';
        // None of the templates uses oauth2_refresh_token: authorize says so, and the steps go on.
        const expected = authorize ? 2 : 0;
        expect(result.code, `${template}: ${command}\n${result.stdout}\n${result.stderr}`).toBe(expected);
        if (authorize) expect(result.stderr).toContain('error [nothing_to_authorize]');
      }
      const byStep = new Map(results.map((r) => [r.step, r.result]));
      expect(byStep.get('npx connector-auth debug')!.stdout).toMatch(/Upserts\s+\|\s+[1-9]\d*\b[\s\S]*Sync SUCCEEDED/);
      expect(byStep.get('npx connector-auth reset --yes')!.stdout).toMatch(/removed .*warehouse\.db/);
      expect(byStep.get('npx connector-auth doctor')!.stdout).toMatch(/doctor: .* in /);
      expect(byStep.get('npx connector-auth airbyte check --config configuration.json')!.stdout).toMatch(
        /"status":"SUCCEEDED"/,
      );
    },
    120_000,
  );
});
