import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserHandoff } from '../../src/auth/index.js';
import { authorizeProject, probeProject } from '../../src/project/index.js';
import { createLogger } from '../../src/log/index.js';
import { Browser, type Page } from '../helpers/browser.js';
import { authorizeConfiguration, confirmDeviceCode, start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak, rejection } from './support.js';

/**
 * `connector-auth authorize` (authorizeProject) against oidc-provider: a real authorization code
 * flow with PKCE, where a browser (test/helpers/browser.ts) follows the provider's redirects, the
 * peer's interaction pages sign the person in and approve (or decline), and the provider sends the
 * browser back to the loopback redirect URI that authorize serves. The refresh token must land in
 * configuration.json, and work: the provider knows it, and a probe with it succeeds.
 */

let peer: OidcPeer;
let root: string;
beforeAll(async () => {
  peer = await start();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-authorize-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});
afterEach(() => peer.decide('approve'));

let projects = 0;
async function project(overrides: Record<string, string | undefined> = {}) {
  const dir = join(root, `project-${++projects}`);
  const configurationPath = join(dir, 'configuration.json');
  const configuration: Record<string, string | undefined> = { ...authorizeConfiguration(peer), ...overrides };
  for (const [key, value] of Object.entries(configuration)) if (value === undefined) delete configuration[key];
  await mkdir(dir, { recursive: true });
  const text = JSON.stringify(configuration, null, 2) + '\n';
  await writeFile(configurationPath, text, { mode: 0o600 });
  return { dir, configurationPath, text };
}

/** A logger whose lines (after redaction, as a user sees them) are kept. */
function logLines() {
  const lines: string[] = [];
  return { lines, log: createLogger({ level: 'debug', format: 'json', write: (line) => lines.push(line) }) };
}

/**
 * The person: opens the URL in a browser. `browsed` settles when the browser has its last page
 * (the command may return a moment before the browser has read the page it was sent).
 */
function person(options: { timeoutMs?: number; before?: (url: URL) => Promise<void> } = {}) {
  const seen: { url?: URL; page?: Page; browsed?: Promise<void> } = {};
  const handoff: BrowserHandoff = {
    timeoutMs: options.timeoutMs ?? 20_000,
    open(url) {
      seen.url = url;
      // Not awaited: a browser runs beside the command, which now waits at its redirect URI.
      seen.browsed = (async () => {
        await options.before?.(url);
        seen.page = await new Browser().open(url);
      })();
    },
  };
  return { handoff, seen };
}

async function authorize(p: { dir: string }, handoff: BrowserHandoff, log = logLines().log) {
  return authorizeProject({ project: p.dir, log, handoff });
}

const refreshTokenIn = async (path: string) =>
  JSON.parse(await readFile(path, 'utf8')).refresh_token as string | undefined;

describe('authorize: the authorization code flow with PKCE, against oidc-provider', () => {
  it('writes the refresh token the person granted into configuration.json, changing nothing else, and a probe then works with it', async () => {
    const p = await project();
    const { lines, log } = logLines();
    const { handoff, seen } = person();

    const result = await authorize(p, handoff, log);
    expect(result).toMatchObject({
      configuration: p.configurationPath,
      authMethod: 'oauth2_refresh_token',
      saved: ['refresh_token'],
    });
    expect(result.scope).toBe('api:read');

    const saved = await refreshTokenIn(p.configurationPath);
    expect(saved).toBe(peer.seen.refreshTokens.at(-1));
    expect(await peer.refreshTokenActive(saved!)).toBe(true);
    // The new key is added after the others, laid out like them; the file keeps its mode.
    const after = await readFile(p.configurationPath, 'utf8');
    expect(after).toBe(p.text.replace(/\n}\n$/, `,\n  "refresh_token": ${JSON.stringify(saved)}\n}\n`));
    expect((await stat(p.configurationPath)).mode & 0o777).toBe(0o600);

    // The browser ended on the loopback page, which says what happened.
    await seen.browsed;
    expect(seen.page?.url.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.page?.status).toBe(200);
    expect(seen.page?.body).toContain('Authorized');

    // The token works: the usual run refreshes with it (and saves the rotated one).
    const probed = await probeProject({ project: p.dir, log });
    expect(probed.outcome).toBe('HTTP 200');
    expect(await refreshTokenIn(p.configurationPath)).not.toBe(saved);

    const code = seen.page!.visited.at(-1)!.searchParams.get('code');
    expect(code).toBeTruthy();
    expectNoLeak(
      [...lines, seen.page!.body],
      [peer.clients.refresh.secret, code!, ...peer.seen.refreshTokens, ...peer.seen.accessTokens],
    );
  });

  it('sends a PKCE S256 challenge, a fresh state and a loopback redirect URI on an ephemeral port', async () => {
    const p = await project();
    const { handoff, seen } = person();
    const before = peer.authorizationRequests.length;
    await authorize(p, handoff);
    const sent = peer.authorizationRequests[before]!;
    expect(sent.get('response_type')).toBe('code');
    expect(sent.get('code_challenge_method')).toBe('S256');
    expect(sent.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.get('state')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(sent.get('prompt')).toBe('consent');
    expect(sent.get('scope')).toBe('offline_access api:read');
    expect(sent.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(new URL(sent.get('redirect_uri')!).port).not.toBe('');
    expect(seen.url?.searchParams.get('code_challenge')).toBe(sent.get('code_challenge'));

    // A second authorization gets a new state and a new challenge.
    const again = await project();
    await authorize(again, person().handoff);
    const next = peer.authorizationRequests.at(-1)!;
    expect(next.get('state')).not.toBe(sent.get('state'));
    expect(next.get('code_challenge')).not.toBe(sent.get('code_challenge'));
  });

  it("a request to the redirect URI without this flow's state is answered 400 and ignored; the real answer still completes the flow", async () => {
    const p = await project();
    const { lines, log } = logLines();
    const forged: { status?: number } = {};
    const { handoff } = person({
      before: async (url) => {
        const redirect = new URL(url.searchParams.get('redirect_uri')!);
        redirect.search = new URLSearchParams({ code: 'forged-code', state: 'not-the-state' }).toString();
        const page = await new Browser().open(redirect);
        forged.status = page.status;
      },
    });
    await authorize(p, handoff, log);
    expect(forged.status).toBe(400);
    const saved = await refreshTokenIn(p.configurationPath);
    expect(await peer.refreshTokenActive(saved!)).toBe(true);
    expect(lines.join('\n')).toMatch(/did not carry this authorization's state; it was ignored/);
  });

  it('a tab closed before its page arrives does not hold authorize up: the token is saved and the command returns', async () => {
    const p = await project();
    const handoff: BrowserHandoff = {
      timeoutMs: 20_000,
      async open(url) {
        const redirect = new URL(url.searchParams.get('redirect_uri')!);
        const page = await new Browser().open(url, { stopBefore: (next) => next.origin === redirect.origin });
        // The browser sends the request at the redirect URI; the tab is closed once authorize is
        // exchanging the code (so it has the request), before the slowed token endpoint answers.
        const exchanges = peer.tokenRequests('authorization_code');
        peer.delayNextTokenRequest(300);
        const socket = connect(Number(redirect.port), '127.0.0.1');
        socket.write(`GET ${page.url.pathname}${page.url.search} HTTP/1.1\r\nHost: ${page.url.host}\r\n\r\n`);
        void (async () => {
          while (peer.tokenRequests('authorization_code') === exchanges)
            await new Promise((resolve) => setTimeout(resolve, 5));
          socket.destroy();
        })();
      },
    };
    await authorize(p, handoff);
    expect(await peer.refreshTokenActive((await refreshTokenIn(p.configurationPath))!)).toBe(true);
  });

  it('a declined consent (access_denied) is exit 3 naming scope, and the configuration is untouched', async () => {
    peer.decide('deny');
    const p = await project();
    const { handoff, seen } = person();
    const error = await rejection(authorize(p, handoff));
    expect(error).toMatchObject({
      name: 'AuthenticationError',
      exitCode: 3,
      code: 'oauth_access_denied',
      key: 'scope',
    });
    expect(error.message).toMatch(/refused the authorization: access_denied \(End-User aborted interaction\)/);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
    await seen.browsed;
    expect(seen.page?.status).toBe(400);
    expect(seen.page?.body).toContain('Authorization failed');
  });

  it('a grant without offline access issues no refresh token: exit 3 naming scope, with how servers are asked; nothing written', async () => {
    // Without prompt=consent, oidc-provider drops offline_access from the request (OpenID Connect §11).
    const p = await project({ authorization_parameters: undefined });
    const error = await rejection(authorize(p, person().handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'refresh_token_not_issued', key: 'scope' });
    expect(error.hint).toMatch(/offline_access.*prompt=consent.*access_type=offline/);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
  });

  it('a wrong client secret fails the code exchange: exit 3 naming client_secret; nothing written, and the page says so', async () => {
    const p = await project({ client_secret: 'not-the-secret-of-this-client' });
    const { handoff, seen } = person();
    const error = await rejection(authorize(p, handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'oauth_invalid_client', key: 'client_secret' });
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
    await seen.browsed;
    expect(seen.page?.body).toContain('invalid_client');
  });

  it('a redirect URI the client did not register: the provider shows its error page, and authorize gives up after --timeout naming redirect_uri', async () => {
    const p = await project({ redirect_uri: 'http://127.0.0.1/not-registered' });
    const { handoff, seen } = person({ timeoutMs: 1500 });
    const error = await rejection(authorize(p, handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'authorization_not_completed', key: 'redirect_uri' });
    expect(error.hint).toMatch(/not a registered redirect URI of client 'refresh-client'/);
    await seen.browsed;
    expect(seen.page?.url.origin).toBe(peer.url);
    expect(seen.page?.status).toBe(400);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
  });

  it('a redirect_uri with a fixed port is served on that port; `localhost` on both loopback addresses', async () => {
    const port = await freePort();
    const fixed = await project({ redirect_uri: `http://127.0.0.1:${port}/callback` });
    await authorize(fixed, person().handoff);
    expect(peer.authorizationRequests.at(-1)!.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/callback`);
    expect(await refreshTokenIn(fixed.configurationPath)).toBeTruthy();

    const named = await project({ redirect_uri: 'http://localhost/callback' });
    const { handoff, seen } = person();
    await authorize(named, handoff);
    await seen.browsed;
    expect(seen.page?.url.hostname).toBe('localhost');
    expect(await refreshTokenIn(named.configurationPath)).toBeTruthy();
  });

  it('a port already in use is exit 2 naming redirect_uri, before any browser opens', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const p = await project({ redirect_uri: `http://127.0.0.1:${port}/callback` });
      const { handoff, seen } = person();
      const error = await rejection(authorize(p, handoff));
      expect(error).toMatchObject({ exitCode: 2, code: 'redirect_uri_unavailable', key: 'redirect_uri' });
      expect(error.message).toContain(`port ${port} is in use`);
      expect(seen.url).toBeUndefined();
    } finally {
      busy.close();
    }
  });
});

/**
 * The person of the device flow: on "another device", opens the URL shown (it carries the user
 * code) and confirms the code on the provider's pages; the peer's interaction pages
 * then sign in and approve (or decline). `delayMs` is how long they take to get to it.
 */
function devicePerson(options: { delayMs?: number; timeoutMs?: number } = {}) {
  const seen: { url?: URL; device?: { userCode: string; verificationUri: URL }; page?: Page; browsed?: Promise<void> } =
    {};
  const handoff: BrowserHandoff = {
    flow: 'device',
    timeoutMs: options.timeoutMs ?? 20_000,
    open(url, device) {
      Object.assign(seen, { url, device });
      seen.browsed = (async () => {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
        seen.page = await confirmDeviceCode(url);
      })();
    },
  };
  return { handoff, seen };
}

describe('authorize --device: the device authorization grant (RFC 8628), against oidc-provider', () => {
  const deviceProject = (overrides: Record<string, string | undefined> = {}) =>
    project({
      authorization_url: undefined,
      device_authorization_url: peer.deviceAuthorizationUrl,
      authorization_parameters: undefined,
      ...overrides,
    });

  it('shows the code and where to enter it, polls no faster than the interval until approved, and saves the refresh token', async () => {
    peer.setDeviceInterval(1);
    const p = await deviceProject();
    const { lines, log } = logLines();
    const { handoff, seen } = devicePerson({ delayMs: 1500 });
    const pollsBefore = peer.devicePolls.length;

    const result = await authorize(p, handoff, log);
    expect(result.saved).toEqual(['refresh_token']);
    const saved = await refreshTokenIn(p.configurationPath);
    expect(await peer.refreshTokenActive(saved!)).toBe(true);

    expect(seen.device?.verificationUri.href).toBe(`${peer.url}/device`);
    expect(seen.device?.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(seen.url?.searchParams.get('user_code')).toBe(seen.device?.userCode);
    await seen.browsed;
    expect(seen.page?.body).toContain('Sign-in Success');

    // Approval took 1.5 s or more: several polls, none closer than the 1 s interval to the last.
    const polls = peer.devicePolls.slice(pollsBefore);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < polls.length; i++) expect(polls[i]! - polls[i - 1]!).toBeGreaterThanOrEqual(950);
    // The user code is meant to be read (and is logged); the device code it stands for is a secret.
    expect(lines.join('\n')).toContain(seen.device!.userCode);
    expectNoLeak(lines, [
      peer.clients.refresh.secret,
      ...peer.seen.deviceCodes,
      ...peer.seen.refreshTokens,
      ...peer.seen.accessTokens,
    ]);
    expect(peer.seen.deviceCodes.length).toBeGreaterThan(0);
  });

  it('--device is chosen over authorization_url when asked; without device_authorization_url it is exit 2 naming it', async () => {
    const both = await project({
      device_authorization_url: peer.deviceAuthorizationUrl,
      authorization_parameters: undefined,
    });
    const { handoff, seen } = devicePerson();
    await authorize(both, handoff);
    expect(seen.device).toBeDefined();
    expect(await refreshTokenIn(both.configurationPath)).toBeTruthy();

    const loopbackOnly = await project();
    const error = await rejection(authorize(loopbackOnly, devicePerson().handoff));
    expect(error).toMatchObject({ exitCode: 2, key: 'device_authorization_url' });
    expect(await readFile(loopbackOnly.configurationPath, 'utf8')).toBe(loopbackOnly.text);
  });

  it('slow_down adds 5 s to the interval for every later poll (RFC 8628 §3.5)', { timeout: 30_000 }, async () => {
    peer.setDeviceInterval(1);
    const p = await deviceProject();
    const pollsBefore = peer.devicePolls.length;
    peer.failNextTokenRequests({ status: 400, body: { error: 'slow_down' } });
    const { handoff } = devicePerson({ delayMs: 500 });
    await authorize(p, handoff);
    const polls = peer.devicePolls.slice(pollsBefore);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    // The first poll was answered slow_down: the next came 1 + 5 s later, not 1.
    expect(polls[1]! - polls[0]!).toBeGreaterThanOrEqual(5950);
    expect(await peer.refreshTokenActive((await refreshTokenIn(p.configurationPath))!)).toBe(true);
  });

  it('a declined code is exit 3 naming scope; nothing written', async () => {
    peer.decide('deny');
    const p = await deviceProject();
    const error = await rejection(authorize(p, devicePerson().handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'oauth_access_denied', key: 'scope' });
    expect(error.message).toMatch(/was declined at http:\/\/127\.0\.0\.1:\d+\/device \(access_denied\)/);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
  });

  it('a code nobody approves ends at --timeout: exit 3, authorization_not_completed; nothing written', async () => {
    const p = await deviceProject();
    const handoff: BrowserHandoff = { flow: 'device', timeoutMs: 1500, open: () => undefined };
    const error = await rejection(authorize(p, handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'authorization_not_completed', key: 'device_authorization_url' });
    expect(error.message).toMatch(/was not approved at .* within 2s/);
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
  });

  it('a wrong client secret is refused at the device authorization endpoint: exit 3 naming client_secret, nothing shown', async () => {
    const p = await deviceProject({ client_secret: 'not-the-secret-of-this-client' });
    const { handoff, seen } = devicePerson();
    const error = await rejection(authorize(p, handoff));
    expect(error).toMatchObject({ exitCode: 3, code: 'oauth_invalid_client', key: 'client_secret' });
    expect(seen.url).toBeUndefined();
  });
});

describe('authorize: bad input is exit 2, names the key, opens nothing and writes nothing', () => {
  const cases: [string, Record<string, string | undefined>, string, RegExp][] = [
    ['no authorization_url', { authorization_url: undefined }, 'authorization_url', /authorization_url' is missing/],
    [
      'authorization_url over plain http to another host',
      { authorization_url: 'http://login.example.com/auth' },
      'authorization_url',
      /must use https/,
    ],
    [
      'a redirect_uri that is not loopback',
      { redirect_uri: 'http://connector.example.com/callback' },
      'redirect_uri',
      /loopback/,
    ],
    [
      'a redirect_uri over https',
      { redirect_uri: 'https://127.0.0.1/callback' },
      'redirect_uri',
      /must start with http:\/\//,
    ],
    [
      'authorization_parameters that set the state',
      { authorization_parameters: 'prompt=consent&state=fixed' },
      'authorization_parameters',
      /may not set 'state'/,
    ],
    [
      'an auth method with nothing to grant',
      { auth_method: 'bearer', token: 'a-bearer-token-value' },
      'auth_method',
      /nothing to grant in a browser/,
    ],
  ];
  for (const [name, overrides, key, message] of cases) {
    it(name, async () => {
      const p = await project(overrides);
      const { handoff, seen } = person();
      const error = await rejection(authorize(p, handoff));
      expect(error).toMatchObject({ exitCode: 2, key });
      expect(error.message).toMatch(message);
      expect(seen.url).toBeUndefined();
      expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
    });
  }

  it('a configuration without refresh_token tells the usual run to use authorize', async () => {
    const p = await project();
    const error = await rejection(probeProject({ project: p.dir, log: logLines().log }));
    expect(error).toMatchObject({ exitCode: 2, code: 'missing_key', key: 'refresh_token' });
    expect(error.message).toMatch(/run `connector-auth authorize`/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
