import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// internals: the blocks init --auth custom writes, compared with docs/auth/custom.md
import { fileBlocks } from '../../src/project/custom-auth-scaffold.js';
import { cli } from '../helpers/cli.js';
import { expectNoLeaks } from '../helpers/leak-check.js';
import { closedPort } from '../peers/http-api.js';
import { startSessionApi, type SessionApiPeer } from '../peers/session-api.js';

/**
 * docs/auth/custom.md as a reader follows it: `init --auth custom` writes the page's method
 * verbatim and offers it with the page's two lines; the page's configuration.json, pointed at a real
 * login endpoint and API (test/peers/session-api.ts, the API the page describes), passes validate
 * and debug syncs the items; a wrong password is exit 3 naming the method's key, a login endpoint
 * nobody answers exit 4; the password and every session token stay out of what was printed and of
 * files/. The method is the project's own: nothing of connector-auth names it.
 */

const GUIDE = new URL('../../docs/auth/custom.md', import.meta.url);
let guide: string;
let peer: SessionApiPeer;
let root: string;
let project: string;
let configuration: Record<string, string>;

beforeAll(async () => {
  guide = await readFile(GUIDE, 'utf8');
  configuration = JSON.parse(/```json\n([\s\S]*?)```/.exec(guide)![1]!) as Record<string, string>;
  [peer, root] = await Promise.all([
    startSessionApi({ username: configuration.api_user!, password: configuration.api_password!, expiresIn: 600 }),
    mkdtemp(join(tmpdir(), 'connector-auth-custom-auth-')),
  ]);
  project = join(root, 'my-api');
  const init = await cli(['init', project, '--auth', 'custom']);
  expect(init.code, init.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The page's configuration with its address (127.0.0.1:8080) where the peer listens. */
async function configure(over: Record<string, string> = {}): Promise<void> {
  const moved = JSON.parse(JSON.stringify(configuration).replaceAll('http://127.0.0.1:8080', peer.url)) as object;
  await writeFile(join(project, 'configuration.json'), JSON.stringify({ ...moved, ...over }, null, 2));
}

describe('docs/auth/custom.md, run as written', () => {
  it('init --auth custom writes the page’s method verbatim and offers it with the page’s two lines', async () => {
    const blocks = fileBlocks(guide);
    expect(await readFile(join(project, 'session-auth.ts'), 'utf8')).toBe(blocks.get('session-auth.ts')![0]);
    const connector = await readFile(join(project, 'connector.ts'), 'utf8');
    for (const line of blocks.get('connector.ts')!) expect(connector).toContain(line);
    // The scaffold's own configuration holds placeholders: validate refuses it until they are filled in.
    const scaffolded = await cli(['validate', project]);
    expect(scaffolded.code).toBe(2);
    expect(scaffolded.stderr).toContain('api_user');
  });

  it('--auth takes `custom`, with the rest-api template only: exit 2 otherwise, nothing written', async () => {
    const unknown = await cli(['init', join(root, 'x'), '--auth', 'oauth3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown --auth 'oauth3'");
    const database = await cli(['init', join(root, 'y'), '--auth', 'custom', '--template', 'database']);
    expect(database.code).toBe(2);
    expect(database.stderr).toContain('--template rest-api');
    expect(existsSync(join(root, 'x')) || existsSync(join(root, 'y'))).toBe(false);
  });

  it('validate accepts the page’s configuration and names the method’s secret key; a misspelt key is refused', async () => {
    await configure();
    const valid = await cli(['validate', project, '--json']);
    expect(valid.code, valid.stderr).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ auth_method: 'api_session', secret_keys: ['api_password'] });
    await writeFile(
      join(project, 'configuration.json'),
      JSON.stringify({ ...configuration, api_password: undefined, api_pasword: 'x-1234567' }),
    );
    const misspelt = await cli(['validate', project]);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain("did you mean 'api_password'");
  });

  it('probe, then debug: the probe logs in, update() syncs the 25 items; no password or token printed or in files/', async () => {
    await configure();
    const probe = await cli(['probe', project]);
    expect(probe.code, probe.stderr).toBe(0);
    const before = peer.logins();
    const run = await cli(['debug', project, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+25/);
    expect(peer.logins() - before).toBe(1);
    await expectNoLeaks([configuration.api_password!, ...peer.tokens], {
      texts: { stdout: run.stdout + probe.stdout, stderr: run.stderr + probe.stderr },
      files: join(project, 'files'),
    });
  });

  it('a wrong password: exit 3 naming api_password', async () => {
    await configure({ api_password: 'pw_Wr0ng/Secret+y' });
    const run = await cli(['debug', project]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("'api_password'");
    expect(run.stderr).not.toContain('pw_Wr0ng/Secret+y');
  });

  it('a login endpoint nobody answers: exit 4 naming api_login_url', async () => {
    await configure({ api_login_url: `http://127.0.0.1:${await closedPort()}/login` });
    const run = await cli(['debug', project]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('api_login_url');
  });
});
