import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, type Page } from '../helpers/browser.js';
import { cli, exists } from '../helpers/cli.js';
import { authorizeConfiguration, confirmDeviceCode, start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak } from '../auth/support.js';

/**
 * `connector-auth authorize` as a person runs it: the built CLI opens the URL with $BROWSER (here a
 * script that hands the URL to the test, which browses it), waits at its loopback redirect URI, and
 * writes the refresh token into configuration.json. Output is checked for every secret involved.
 */

let peer: OidcPeer;
let root: string;
let fakeBrowser: string;
beforeAll(async () => {
  peer = await start();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-authorize-cli-'));
  // The "browser" only records the URL it was asked to open; the test is the person who browses it.
  fakeBrowser = join(root, 'browser.sh');
  await writeFile(
    fakeBrowser,
    '#!/bin/sh\nprintf "%s" "$1" > "$OPENED_URL_FILE.tmp" && mv "$OPENED_URL_FILE.tmp" "$OPENED_URL_FILE"\n',
  );
  await chmod(fakeBrowser, 0o755);
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});

let projects = 0;
async function project() {
  const dir = join(root, `project-${++projects}`);
  await mkdir(dir, { recursive: true });
  const configuration = authorizeConfiguration(peer);
  const text = JSON.stringify(configuration, null, 2) + '\n';
  await writeFile(join(dir, 'configuration.json'), text, { mode: 0o600 });
  return { dir, configurationPath: join(dir, 'configuration.json'), text, openedUrlFile: join(dir, 'opened-url') };
}

/** Waits for the fake browser to be asked to open a URL, then browses it as the person would (`person`: the device flow's). */
async function browseWhenOpened(
  file: string,
  person: (url: string) => Promise<Page> = (url) => new Browser().open(url),
): Promise<void> {
  for (let waited = 0; !(await exists(file)); waited += 20) {
    if (waited > 15_000) throw new Error('the CLI never opened a browser');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const page = await person(await readFile(file, 'utf8'));
  expect(page.status).toBe(200);
}

describe('connector-auth authorize', () => {
  it('opens $BROWSER, waits for the grant, writes the refresh token, and the next probe works; nothing secret is printed', async () => {
    const p = await project();
    const env = { BROWSER: fakeBrowser, OPENED_URL_FILE: p.openedUrlFile };
    const [run] = await Promise.all([
      cli(['authorize', p.dir, '--open', '--timeout', '20'], { env }),
      browseWhenOpened(p.openedUrlFile),
    ]);
    expect(run.stderr).toContain('To authorize, open this URL in a browser (opening it now):');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `authorized: refresh_token saved to ${p.configurationPath} (scope granted: api:read)\nnext: npx connector-auth probe\n`,
    );
    // The URL printed is the one the browser was given.
    expect(run.stderr).toContain(await readFile(p.openedUrlFile, 'utf8'));

    const saved = JSON.parse(await readFile(p.configurationPath, 'utf8')).refresh_token as string;
    expect(await peer.refreshTokenActive(saved)).toBe(true);
    const probe = await cli(['probe', p.dir]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/^probe OK: /);

    expectNoLeak(
      [run.stdout, run.stderr, probe.stdout, probe.stderr],
      [peer.clients.refresh.secret, ...peer.seen.refreshTokens, ...peer.seen.accessTokens],
    );
  });

  it('--json: the URL is a field of a log line on stderr, the result one JSON document on stdout', async () => {
    const p = await project();
    const env = { BROWSER: fakeBrowser, OPENED_URL_FILE: p.openedUrlFile };
    const [run] = await Promise.all([
      cli(['authorize', p.dir, '--open', '--json'], { env }),
      browseWhenOpened(p.openedUrlFile),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      configuration: p.configurationPath,
      auth_method: 'oauth2_refresh_token',
      saved: ['refresh_token'],
      scope: 'api:read',
    });
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.authorization_url)?.authorization_url).toBe(
      await readFile(p.openedUrlFile, 'utf8'),
    );
  });

  it('without a terminal and without --open, nothing is opened: the URL is printed, and the wait ends at --timeout (exit 3, nothing written)', async () => {
    const p = await project();
    const run = await cli(['authorize', p.dir, '--timeout', '1'], {
      env: { BROWSER: fakeBrowser, OPENED_URL_FILE: p.openedUrlFile },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('To authorize, open this URL in a browser:');
    expect(run.stderr).toMatch(
      /error \[authorization_not_completed\]: .*no authorization response came back to http:\/\/127\.0\.0\.1:\d+\/callback within 1s/,
    );
    expect(await exists(p.openedUrlFile)).toBe(false);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
  });

  it('--device: prints where to go and the code to enter, and saves the refresh token once the code is approved', async () => {
    const p = await project();
    await writeFile(
      p.configurationPath,
      JSON.stringify({ ...JSON.parse(p.text), device_authorization_url: peer.deviceAuthorizationUrl }, null, 2),
    );
    const env = { BROWSER: fakeBrowser, OPENED_URL_FILE: p.openedUrlFile };
    const [run] = await Promise.all([
      cli(['authorize', p.dir, '--device', '--open'], { env }),
      browseWhenOpened(p.openedUrlFile, confirmDeviceCode),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const opened = new URL(await readFile(p.openedUrlFile, 'utf8'));
    const userCode = opened.searchParams.get('user_code')!;
    expect(run.stderr).toContain(
      `To authorize, open ${peer.url}/device in a browser on any device (opening it now) and enter the code:\n\n  ${userCode}\n`,
    );
    expect(run.stdout).toMatch(/^authorized: refresh_token saved to /);
    const saved = JSON.parse(await readFile(p.configurationPath, 'utf8')).refresh_token as string;
    expect(await peer.refreshTokenActive(saved)).toBe(true);
    expectNoLeak(
      [run.stdout, run.stderr],
      [peer.clients.refresh.secret, ...peer.seen.deviceCodes, ...peer.seen.refreshTokens, ...peer.seen.accessTokens],
    );
  });

  it('a --timeout that is not a positive number of seconds is bad input (exit 2)', async () => {
    const p = await project();
    for (const value of ['0', 'abc', '-5', '99999']) {
      const run = await cli(['authorize', p.dir, `--timeout=${value}`]);
      expect(run.code, value).toBe(2);
      expect(run.stderr).toMatch(/--timeout must be a number of seconds/);
    }
  });
});
