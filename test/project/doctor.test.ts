import { execFileSync } from 'node:child_process';
import { appendFile, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/project/index.js';
import { cli, leakForms, offerMethods } from '../helpers/cli.js';

/**
 * `connector-auth doctor` on real projects scaffolded by `init`, with real git repositories: every
 * check finds what it should, names the key, file and line, and never prints a secret in any form.
 */

const TOKEN = 'tok_live_D0ctorS3cret';
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'connector-auth-doctor-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const today = () => new Date().toISOString().slice(0, 10);

/** A project as `init` makes it, with a real token, in a git repository unless `git: false`. */
async function project(
  name: string,
  options: { git?: boolean; configuration?: Record<string, string> } = {},
): Promise<string> {
  const dir = join(root, name);
  const init = await cli(['init', dir, '--template', 'rest-api']);
  expect(init.code, init.stderr).toBe(0);
  // Some cases use a cloud identity the template does not name.
  await offerMethods(dir, 'all');
  const configuration = options.configuration ?? {
    auth_method: 'bearer',
    token: TOKEN,
    base_url: 'https://api.example.com/v1',
    probe_path: 'health',
    items_path: 'items',
    credential_issued_at: today(),
  };
  await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration, null, 2));
  if (options.git !== false) git(dir, 'init', '-q');
  return dir;
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, stdio: 'ignore' });
}

const checks = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.check}`).sort();

/** `connector-auth doctor --json` as a user runs it (the CLI is what resolves 'connector-auth' for connector.ts). */
async function doctor(dir: string): Promise<{ code: number; healthy: boolean; findings: Finding[] }> {
  const run = await cli(['doctor', dir, '--json']);
  for (const form of leakForms(TOKEN)) expect(run.stdout + run.stderr).not.toContain(form);
  const report = JSON.parse(run.stdout) as { ok: boolean; findings: Finding[] };
  expect(run.code).toBe(report.ok ? 0 : 2);
  return { code: run.code, healthy: report.ok, findings: report.findings };
}

/** Puts a line at the top of the template's connector, which stays a valid connector. */
async function prepend(path: string, line: string): Promise<void> {
  await writeFile(path, `${line}\n${await readFile(path, 'utf8')}`);
}

describe('connector-auth doctor', () => {
  it('a project fresh from init, in git, with a dated credential: nothing to fix, exit 0', async () => {
    const dir = await project('healthy');
    expect((await doctor(dir)).findings).toEqual([]);
    const run = await cli(['doctor', dir]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('doctor: nothing to fix');
  });

  it('a fresh scaffold checked with its configuration.local.json: ignored by git like configuration.json, no warning', async () => {
    const dir = await project('local-configuration');
    const run = await cli(['doctor', dir, '--configuration', join(dir, 'configuration.local.json'), '--json']);
    const report = JSON.parse(run.stdout) as { findings: Finding[] };
    expect(report.findings.filter((f) => f.severity !== 'note')).toEqual([]);
  });

  it('a token pasted into connector.ts and a README (base64 too): an error per line, naming file, line and key; exit 2 and no form of it printed', async () => {
    const dir = await project('pasted');
    await prepend(join(dir, 'connector.ts'), `// const token = '${TOKEN}';`);
    await mkdir(join(dir, 'docs'));
    await writeFile(
      join(dir, 'docs', 'notes.md'),
      `# Notes\n\ncurl -H 'Authorization: Basic ${Buffer.from(TOKEN).toString('base64')}'\n`,
    );
    // Dependencies and the local run's output are not the author's files.
    await mkdir(join(dir, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'x', 'index.js'), `'${TOKEN}'`);

    const report = await doctor(dir);
    const found = report.findings.filter((f) => f.check === 'secret-in-file');
    expect(found.map((f) => [f.where, f.key])).toEqual([
      ['connector.ts:1', 'token'],
      ['docs/notes.md:3', 'token'],
    ]);
    expect(report.healthy).toBe(false);

    for (const json of [false, true]) {
      const run = await cli(json ? ['doctor', dir, '--json'] : ['doctor', dir]);
      expect(run.code).toBe(2);
      for (const form of leakForms(TOKEN)) expect(run.stdout + run.stderr).not.toContain(form);
      if (json)
        expect(JSON.parse(run.stdout).findings.filter((f: Finding) => f.check === 'secret-in-file')).toHaveLength(2);
      else expect(run.stdout).toMatch(/^error +connector\.ts:1 holds the value of 'token' from the configuration$/m);
    }
  });

  it('configuration.json tracked by git: an error that says to rotate; merely not ignored: a warning', async () => {
    const tracked = await project('tracked');
    await writeFile(join(tracked, '.gitignore'), 'node_modules/\nfiles/\n');
    git(tracked, 'add', 'configuration.json');
    git(tracked, 'commit', '-q', '-m', 'oops');
    const trackedReport = await doctor(tracked);
    expect(checks(trackedReport.findings)).toEqual(['error configuration-tracked-by-git']);
    expect(trackedReport.findings[0]!.hint).toMatch(/rotate/);

    const unignored = await project('unignored');
    await writeFile(join(unignored, '.gitignore'), 'node_modules/\n');
    expect(checks((await doctor(unignored)).findings)).toEqual([
      'warning configuration-not-ignored',
      'warning files-not-ignored',
    ]);
  });

  it('outside a git repository the git checks are skipped, and the report says so', async () => {
    const dir = await project('no-git', { git: false });
    expect(checks((await doctor(dir)).findings)).toEqual(['note git-not-checked']);
  });

  it('file modes: readable by every user is an error for the configuration, open to the group a warning', async () => {
    const dir = await project('modes');
    await chmod(join(dir, 'configuration.json'), 0o644);
    expect(checks((await doctor(dir)).findings)).toEqual(['error file-readable-by-others']);
    await chmod(join(dir, 'configuration.json'), 0o640);
    const report = await doctor(dir);
    expect(checks(report.findings)).toEqual(['warning file-readable-by-others']);
    expect(report.findings[0]!.hint).toBe('chmod 600 configuration.json');
  });

  it('a state file holding a secret is an error naming the key', async () => {
    const dir = await project('state');
    await mkdir(join(dir, 'files'));
    await writeFile(
      join(dir, 'files', 'state.json'),
      JSON.stringify({ cursor: 'abc', auth: encodeURIComponent(TOKEN) }),
    );
    const report = await doctor(dir);
    expect(report.findings.map((f) => [f.check, f.key, f.where])).toEqual([
      ['secret-in-state', 'token', join('files', 'state.json')],
    ]);
  });

  it('verification turned off, a credential past its rotation age, and no issue date are reported', async () => {
    const base = {
      auth_method: 'bearer',
      token: TOKEN,
      base_url: 'https://api.example.com/v1',
      probe_path: 'health',
      items_path: 'items',
    };
    const old = await project('old', {
      configuration: { ...base, credential_issued_at: '2020-01-01', tls_skip_verify: 'true' },
    });
    const report = await doctor(old);
    expect(checks(report.findings)).toEqual(['warning credential-due-for-rotation', 'warning verification-off']);
    const age = report.findings.find((f) => f.check === 'credential-due-for-rotation')!.message;
    expect(age).toMatch(/^the bearer credential is \d+ days old; the rule for it is every 90 days$/);
    expect(Number(/\d+/.exec(age)![0])).toBeGreaterThan(2000);
    expect(report.healthy).toBe(true);

    // Any spelling the configuration reads as true turns verification off, so doctor reads it the same way.
    const spelled = await project('spelled', {
      configuration: { ...base, credential_issued_at: today(), allow_plain_http: 'yes', tls_skip_verify: '1' },
    });
    expect(checks((await doctor(spelled)).findings)).toEqual(['warning verification-off', 'warning verification-off']);

    const undated = await project('undated', { configuration: base });
    expect(checks((await doctor(undated)).findings)).toEqual(['note credential-age-unknown']);
  });

  it('encryption turned off by name (plain FTP, a mysql connection without TLS) is a warning naming the key', async () => {
    const cases: [string, Record<string, string>][] = [
      ['ftp', { host: 'files.example.com', username: 'alice', ftp_tls: 'none' }],
      ['mysql', { host: 'db.example.com', user: 'alice', database: 'sales', mysql_tls: 'none' }],
    ];
    for (const [source, keys] of cases) {
      const dir = await project(`plain-${source}`, {
        configuration: { auth_method: 'password', password: TOKEN, credential_issued_at: today(), ...keys },
      });
      await writeFile(
        join(dir, 'connector.ts'),
        `import { defineConnector } from 'connector-auth';\nexport default defineConnector({ source: '${source}', async update() {} });\n`,
      );
      const report = await doctor(dir);
      expect(checks(report.findings), source).toEqual(['warning encryption-off']);
      const key = `${source}_tls`;
      expect(report.findings[0]!.key).toBe(key);
      expect(report.findings[0]!.message).toMatch(new RegExp(`^${key} is none: `));
    }
  });

  it("the workload's own identity (gcp_metadata, azure_managed_identity) keeps no secret to rotate: no rotation finding, dated or not", async () => {
    const base = { base_url: 'https://api.example.com/v1', probe_path: 'health', items_path: 'items' };
    for (const identity of [
      { auth_method: 'gcp_metadata' },
      { auth_method: 'azure_managed_identity', resource: 'api://orders' },
    ] as Record<string, string>[]) {
      const undated = await project(`identity-${identity.auth_method}`, { configuration: { ...base, ...identity } });
      expect(checks((await doctor(undated)).findings), identity.auth_method).toEqual([]);
      const dated = await project(`identity-${identity.auth_method}-dated`, {
        configuration: { ...base, ...identity, credential_issued_at: '2020-01-01' },
      });
      expect(checks((await doctor(dated)).findings), identity.auth_method).toEqual([]);
    }
  });

  it('an invalid configuration is one finding naming the key, and the other checks still run', async () => {
    const dir = await project('invalid', {
      configuration: {
        auth_method: 'bearer',
        base_url: 'https://api.example.com/v1',
        items_path: 'items',
        secret_note: TOKEN,
      },
    });
    await chmod(join(dir, 'configuration.json'), 0o644);
    await appendFile(join(dir, 'connector.ts'), `// leaked: ${TOKEN}\n`);
    const report = await doctor(dir);
    const invalid = report.findings.find((f) => f.check === 'configuration-invalid')!;
    expect(invalid.key).toBe('token');
    // Keys whose names say "secret" are secrets even when the configuration does not validate.
    expect(checks(report.findings)).toEqual([
      'error configuration-invalid',
      'error file-readable-by-others',
      'error secret-in-file',
    ]);
  });

  it('a secret key of the connector with a default written in connector.ts: a warning naming the key and line, never the value', async () => {
    const dir = await project('secret-default');
    const value = 'sgn_written_in_code_5e1f0a';
    const path = join(dir, 'connector.ts');
    const code = await readFile(path, 'utf8');
    const withDefaults = code.replace(
      /configuration: z\.object\(\{/,
      `configuration: z.object({\n    signing_secret: z.string().default('${value}'),\n    from_env: z.string().default(process.execPath),`,
    );
    expect(withDefaults).not.toBe(code);
    await writeFile(
      path,
      withDefaults.replace(/defineConnector\(\{/, "defineConnector({\n  secretKeys: ['from_env'],"),
    );
    const report = await doctor(dir);
    const line = withDefaults.split('\n').findIndex((l) => l.includes(value)) + 2;
    expect(report.findings.filter((f) => f.check === 'secret-default-in-code')).toEqual([
      expect.objectContaining({ severity: 'warning', key: 'signing_secret', where: `connector.ts:${line}` }),
    ]);
    expect(report.healthy).toBe(true);
    const run = await cli(['doctor', dir]);
    expect(run.stdout + run.stderr).not.toContain(value);
    expect(run.stdout).toMatch(/^warning +connector\.ts:\d+ gives the secret key 'signing_secret' a default/m);
  });
});
