import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfigurationFile } from '../../src/config/index.js';
import { probeProject } from '../../src/project/index.js';
// internals: withValue, the file rewrite the persister makes, is no export of project/'s door
import { createConfigurationPersister, withValue } from '../../src/project/persist-configuration-value.js';
import { exists } from '../helpers/cli.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { connect, expectNoLeak, harness, rejection, request, type Harness } from './support.js';

/**
 * oauth2_refresh_token against oidc-provider with refresh token rotation on: each refresh consumes
 * the refresh token it sends and answers with a new one, so a run that does not save the new one
 * leaves the next run with nothing that works.
 */

let peer: OidcPeer;
let root: string;
beforeAll(async () => {
  peer = await start();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-refresh-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});

let projects = 0;
async function project(
  refreshToken: string,
  mode = 0o640,
): Promise<{ dir: string; configurationPath: string; filesDir: string; text: string }> {
  const dir = join(root, `project-${++projects}`);
  const configurationPath = join(dir, 'configuration.json');
  const configuration = {
    auth_method: 'oauth2_refresh_token',
    token_url: peer.tokenUrl,
    client_id: peer.clients.refresh.id,
    client_secret: peer.clients.refresh.secret,
    refresh_token: refreshToken,
    base_url: peer.apiUrl,
    probe_path: 'health',
    items_path: 'items',
  };
  await mkdir(dir, { recursive: true });
  const text = JSON.stringify(configuration, null, 2) + '\n';
  await writeFile(configurationPath, text, { mode });
  await chmod(configurationPath, mode);
  return { dir, configurationPath, filesDir: join(dir, 'files'), text };
}

/** One run as the local runner does it: read the file, authenticate with the persister, probe, close. */
async function run(
  h: Harness,
  p: { configurationPath: string; filesDir: string },
  options: { fakeClock?: boolean } = {},
) {
  const raw = await readConfigurationFile(p.configurationPath);
  const persist = createConfigurationPersister({
    configurationPath: p.configurationPath,
    filesDir: p.filesDir,
    log: h.log,
  });
  const a = await connect(h, raw, { persistConfigurationValue: persist, filesDir: p.filesDir, ...options });
  try {
    return await a.probe();
  } finally {
    await a.close();
  }
}

const secretsSeen = (...extra: string[]) => [
  peer.clients.refresh.secret,
  ...peer.seen.refreshTokens,
  ...peer.seen.accessTokens,
  ...extra,
];

describe('oauth2_refresh_token with rotation', () => {
  it('two runs in a row both succeed, the second with the token the first saved', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first);

    expect((await run(h, p)).outcome).toBe('HTTP 200');
    const afterFirst = await readFile(p.configurationPath, 'utf8');
    const second = JSON.parse(afterFirst).refresh_token as string;
    expect(second).not.toBe(first);
    expect(second).toBe(peer.seen.refreshTokens.at(-1));
    // The provider consumed the first: only the saved one works now.
    expect(await peer.refreshTokenActive(first)).toBe(false);
    expect(await peer.refreshTokenActive(second)).toBe(true);
    // Only the value changed: same keys, order, indentation, trailing newline and file mode.
    expect(afterFirst).toBe(withValue(p.text, 'refresh_token', second));
    expect(afterFirst.replace(second, first)).toBe(p.text);
    expect((await stat(p.configurationPath)).mode & 0o777).toBe(0o640);

    expect((await run(h, p)).outcome).toBe('HTTP 200');
    const third = JSON.parse(await readFile(p.configurationPath, 'utf8')).refresh_token as string;
    expect(third).not.toBe(second);
    expect(await peer.refreshTokenActive(second)).toBe(false);
    expect(await peer.refreshTokenActive(third)).toBe(true);

    expect(h.lines.filter((l) => l.includes('rotated the refresh token; the new one is saved'))).toHaveLength(2);
    expectNoLeak(h.lines, secretsSeen(first));
  });

  it('`connector-auth probe` saves a rotated refresh token as debug does: a probe is a real use of the credential', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first);
    expect((await probeProject({ project: p.dir, log: h.log })).outcome).toBe('HTTP 200');
    const saved = JSON.parse(await readFile(p.configurationPath, 'utf8')).refresh_token as string;
    expect(saved).not.toBe(first);
    expect(await peer.refreshTokenActive(saved)).toBe(true);
    expect(await exists(join(p.filesDir, 'refresh_token.recovery.json'))).toBe(false);
  });

  it('a read-only configuration.json stops the run: the new token waits in a 0600 recovery file, none is lost', async () => {
    // Root may write a 0444 file; the persister refuses one with no write bit for anyone, for root too.
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first, 0o444);
    const resourceCallsBefore = peer.resourceRequests.length;

    const error = await rejection(run(h, p));
    expect(error.name).toBe('ConfigurationError');
    expect(error.exitCode).toBe(2);
    const recovery = join(p.filesDir, 'refresh_token.recovery.json');
    expect(error.message).toContain(p.configurationPath);
    expect(error.message).toContain(recovery);
    expect(error.message).toContain('read-only');
    // The new access token was never used: persisting comes first.
    expect(peer.resourceRequests.length).toBe(resourceCallsBefore);

    // Nothing lost: the configuration is as it was, the recovery file holds the one valid token.
    expect(await readFile(p.configurationPath, 'utf8')).toBe(p.text);
    expect((await stat(recovery)).mode & 0o777).toBe(0o600);
    const recovered = JSON.parse(await readFile(recovery, 'utf8'));
    expect(recovered.key).toBe('refresh_token');
    expect(recovered.value).toBe(peer.seen.refreshTokens.at(-1));
    expect(await peer.refreshTokenActive(first)).toBe(false);
    expect(await peer.refreshTokenActive(recovered.value)).toBe(true);
    expectNoLeak([error.message, String(error.hint), ...h.lines], secretsSeen(first));

    // The next run warns about the recovery file; with the recovered value in place, it succeeds.
    await chmod(p.configurationPath, 0o640);
    await writeFile(p.configurationPath, withValue(p.text, 'refresh_token', recovered.value));
    const next = harness();
    expect((await run(next, p)).outcome).toBe('HTTP 200');
    expect(next.lines.some((l) => l.includes('refresh_token.recovery.json holds a rotated refresh token'))).toBe(true);
  });

  it('the save is awaited before the new access token is used', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const events: string[] = [];
    const calls = () => peer.resourceRequests.length;
    const before = calls();
    const a = await connect(
      h,
      { ...JSON.parse((await project(first)).text) },
      {
        persistConfigurationValue: async (key, value) => {
          events.push(`save ${key} start (resource calls ${calls() - before})`);
          await new Promise((r) => setTimeout(r, 300));
          expect(value).toBe(peer.seen.refreshTokens.at(-1));
          events.push(`save ${key} end (resource calls ${calls() - before})`);
        },
      },
    );
    try {
      await a.probe();
    } finally {
      await a.close();
    }
    events.push(`probe done (resource calls ${calls() - before})`);
    expect(events).toEqual([
      'save refresh_token start (resource calls 0)',
      'save refresh_token end (resource calls 0)',
      'probe done (resource calls 1)',
    ]);
  });

  it('a save callback that fails (library use): ConfigurationError naming the recovery file; the credential stays stopped', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first);
    const a = await connect(h, JSON.parse(p.text), {
      filesDir: p.filesDir,
      persistConfigurationValue: async () => {
        throw new Error('the vault is sealed');
      },
    });
    try {
      const error = await rejection(a.probe());
      expect(error.exitCode).toBe(2);
      expect(error.key).toBe('refresh_token');
      expect(error.message).toContain('the vault is sealed');
      expect(error.message).toContain(join(p.filesDir, 'refresh_token.recovery.json'));
      // Final: no further token request, whoever asks.
      const count = peer.tokenRequests('refresh_token');
      const again = await rejection(a.credential.httpRequest!.authorize(request(peer.apiUrl)));
      expect(again).toBe(error);
      expect(peer.tokenRequests('refresh_token')).toBe(count);
      expect(a.credential.invalidate!()).toBe(false);
      expectNoLeak([error.message, ...h.lines], secretsSeen(first));
    } finally {
      await a.close();
    }
  });

  it('without any way to save (library use, no callback): a warning, and the next refresh uses the newest token in memory', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const before = peer.tokenRequests('refresh_token');
    const a = await connect(h, JSON.parse((await project(first)).text), { fakeClock: true });
    try {
      await a.credential.prepare!();
      h.clock.advance(301_000);
      // Had the old (consumed) token been sent, the provider would answer invalid_grant and revoke the grant.
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      h.clock.advance(301_000);
      await a.credential.httpRequest!.authorize(request(peer.apiUrl));
      expect(peer.tokenRequests('refresh_token') - before).toBe(3);
      expect(await peer.refreshTokenActive(peer.seen.refreshTokens.at(-1)!)).toBe(true);
    } finally {
      await a.close();
    }
    const warnings = h.lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'WARNING');
    expect(warnings).toHaveLength(3);
    expect(warnings[0].message).toContain('kept in memory only');
    expectNoLeak(h.lines, secretsSeen(first));
  });

  it('a consumed refresh token: AuthenticationError (exit 3) naming refresh_token and invalid_grant', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first);
    await run(h, p); // consumes `first`
    const stale = await project(first);
    const before = peer.tokenRequests('refresh_token');
    const error = await rejection(run(h, stale));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('refresh_token');
    expect(error.code).toBe('oauth_invalid_grant');
    expect(error.message).toContain('invalid_grant');
    expect(error.hint).toContain("'refresh_token'");
    expect(peer.tokenRequests('refresh_token') - before).toBe(1);
    expectNoLeak([error.message, ...h.lines], secretsSeen(first));
  });

  it('a wrong client secret: exit 3 naming client_secret', async () => {
    const h = harness();
    const first = await peer.issueRefreshToken();
    const p = await project(first);
    const configuration = { ...JSON.parse(p.text), client_secret: 'not-the-secret-at-all' };
    const a = await connect(h, configuration);
    try {
      const error = await rejection(a.probe());
      expect(error.exitCode).toBe(3);
      expect(error.key).toBe('client_secret');
      expect(error.message).toContain('invalid_client');
      expectNoLeak([error.message, ...h.lines], [...secretsSeen(first), 'not-the-secret-at-all']);
    } finally {
      await a.close();
    }
    // Refused before consuming anything.
    expect(await peer.refreshTokenActive(first)).toBe(true);
  });
});
