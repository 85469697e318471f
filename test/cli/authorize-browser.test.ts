import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exists } from '../helpers/cli.js';
import { startChromium, type RealBrowser } from '../peers/chromium.js';
import { authorizeConfiguration, start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak } from '../auth/support.js';

/**
 * `connector-auth authorize` with a real browser (issue 24, point 13): the built CLI hands the URL to
 * $BROWSER (a script that passes it to the test), and headless Chromium, driven by playwright-core,
 * is the person: it signs in and consents on oidc-provider's own interaction pages (its login form,
 * its consent button, its Cancel link), follows the redirect to the CLI's loopback page and shows
 * what that page says. Three endings: approved, declined, and an error after the browser came back
 * (the token exchange refused).
 */

let peer: OidcPeer;
let browser: RealBrowser;
let root: string;
let opener: string;
beforeAll(async () => {
  [peer, browser, root] = await Promise.all([
    start({ ownInteractionPages: true }),
    startChromium(),
    mkdtemp(join(tmpdir(), 'connector-auth-authorize-browser-')),
  ]);
  opener = join(root, 'open-url.sh');
  await writeFile(
    opener,
    '#!/bin/sh\nprintf "%s" "$1" > "$OPENED_URL_FILE.tmp" && mv "$OPENED_URL_FILE.tmp" "$OPENED_URL_FILE"\n',
  );
  await chmod(opener, 0o755);
});
afterAll(async () => {
  await browser?.stop();
  await peer?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

let projects = 0;
async function project(overrides: Record<string, string> = {}) {
  const dir = join(root, `project-${++projects}`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'configuration.json'),
    JSON.stringify({ ...authorizeConfiguration(peer), ...overrides }, null, 2),
    { mode: 0o600 },
  );
  return { dir, configurationPath: join(dir, 'configuration.json'), openedUrlFile: join(dir, 'opened-url') };
}

async function openedUrl(file: string): Promise<string> {
  for (let waited = 0; !(await exists(file)); waited += 20) {
    if (waited > 20_000) throw new Error('the CLI never handed a URL to $BROWSER');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return readFile(file, 'utf8');
}

/** What the person sees at the end: the loopback page's heading and text, and where it is. */
async function finalPage(
  page: Page,
): Promise<{ url: URL; title: string; heading: string; text: string; scripts: number }> {
  await page.waitForURL((url) => url.hostname === '127.0.0.1' && url.pathname === '/callback', { timeout: 20_000 });
  await page.waitForSelector('h1');
  return {
    url: new URL(page.url()),
    title: await page.title(),
    heading: (await page.textContent('h1')) ?? '',
    text: (await page.textContent('p')) ?? '',
    scripts: await page.locator('script').count(),
  };
}

/** The person: signs in as `login` on the provider's login page, then approves (Continue) or declines (Cancel). */
async function person(url: string, choice: 'approve' | 'decline') {
  // Each person starts signed out: the provider's session cookie of an earlier test would skip its login page.
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  try {
    await page.goto(url);
    await page.fill('input[name="login"]', 'ada@example.com');
    await page.fill('input[name="password"]', 'any password: the development pages check none');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button:has-text("Continue")');
    if (choice === 'approve') await page.click('button:has-text("Continue")');
    else await page.click('a:has-text("Cancel")');
    return await finalPage(page);
  } finally {
    await page.close();
  }
}

const authorize = (p: { dir: string; openedUrlFile: string }) =>
  cli(['authorize', p.dir, '--open', '--timeout', '60'], {
    env: { BROWSER: opener, OPENED_URL_FILE: p.openedUrlFile },
  });

describe("connector-auth authorize in headless Chromium, on oidc-provider's own pages", () => {
  it('approve: the loopback page says Authorized, the refresh token is saved and works', async () => {
    const p = await project();
    const run = authorize(p);
    const seen = await person(await openedUrl(p.openedUrlFile), 'approve');
    const done = await run;
    expect(done.code, done.stderr).toBe(0);
    expect(seen.title).toBe('Authorized');
    expect(seen.heading).toBe('Authorized');
    expect(seen.text).toBe(
      `The refresh token of client '${peer.clients.refresh.id}' is saved in the connector's configuration. You can close this tab.`,
    );
    // The page is the CLI's: no script, nothing that could send the code in its URL elsewhere.
    expect(seen.scripts).toBe(0);
    expect(seen.url.searchParams.get('code')).toBeTruthy();
    const saved = JSON.parse(await readFile(p.configurationPath, 'utf8')).refresh_token as string;
    expect(await peer.refreshTokenActive(saved)).toBe(true);
    expect(done.stdout).toContain('next: npx connector-auth probe');
    const probe = await cli(['probe', p.dir]);
    expect(probe.code, probe.stderr).toBe(0);
    expectNoLeak([done.stdout, done.stderr, seen.text, seen.url.search], [peer.clients.refresh.secret, saved]);
  });

  it("decline (Cancel on the provider's page): the loopback page says the authorization failed, access_denied; exit 3, nothing saved", async () => {
    const p = await project();
    const before = await readFile(p.configurationPath, 'utf8');
    const run = authorize(p);
    const seen = await person(await openedUrl(p.openedUrlFile), 'decline');
    const done = await run;
    expect(done.code, done.stderr).toBe(3);
    expect(seen.heading).toBe('Authorization failed');
    expect(seen.text).toMatch(
      /refused the authorization: access_denied \(End-User aborted interaction\)\. See the terminal\./,
    );
    expect(done.stderr).toMatch(/error \[oauth_access_denied\]/);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(before);
  });

  it('error after the browser came back (the code exchange refused: a wrong client_secret): the page says so, without the secret; exit 3', async () => {
    const wrong = 'not-the-client-secret-8d1f0a';
    const p = await project({ client_secret: wrong });
    const run = authorize(p);
    const seen = await person(await openedUrl(p.openedUrlFile), 'approve');
    const done = await run;
    expect(done.code, done.stderr).toBe(3);
    expect(seen.heading).toBe('Authorization failed');
    expect(seen.text).toMatch(/refused the token request: invalid_client/);
    expect(done.stderr).toMatch(/error \[oauth_invalid_client\]/);
    expectNoLeak([seen.text, done.stdout, done.stderr], [wrong]);
  });
});
