import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak } from './support.js';

/**
 * The token methods through the built CLI (`npm test` builds first): `connector-auth debug` on a
 * scaffolded REST project against oidc-provider.
 */

let peer: OidcPeer;
let root: string;
beforeAll(async () => {
  peer = await start();
  root = await mkdtemp(join(tmpdir(), 'connector-auth-oauth-debug-'));
});
afterAll(async () => {
  await peer.stop();
  await rm(root, { recursive: true, force: true });
});

const project = (name: string, configuration: Record<string, string>) =>
  initTemplate(root, name, 'rest-api', configuration, { replaceConfiguration: true });

const clientCredentials = (secret: string) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: peer.clients.basic.id,
  client_secret: secret,
  scope: 'api:read',
  base_url: peer.apiUrl,
  probe_path: 'health',
  items_path: 'items',
});

const everySecret = () => [
  peer.clients.basic.secret,
  peer.clients.refresh.secret,
  ...peer.seen.accessTokens,
  ...peer.seen.refreshTokens,
];

describe('connector-auth debug with OAuth 2.0', () => {
  it('client credentials, good secret: exit 0, rows synced, nothing secret printed or stored', async () => {
    const dir = await project('cc-good', clientCredentials(peer.clients.basic.secret));
    const run = await cli(['debug', dir, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+2/);
    expect(run.stdout).toContain('Sync SUCCEEDED');
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], everySecret());
  });

  it('client credentials, wrong secret: exit 3 naming client_secret and invalid_client, nothing written', async () => {
    const wrong = `${peer.clients.basic.secret}-typo`;
    const dir = await project('cc-wrong', clientCredentials(wrong));
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('invalid_client');
    expect(run.stderr).toContain('client_secret');
    expect(await readTree(join(dir, 'files'))).toBe('');
    expectNoLeak([run.stdout, run.stderr], [wrong, ...everySecret()]);
  });

  it('refresh token with rotation: two debug runs in a row, the second with the token the first saved', async () => {
    const first = await peer.issueRefreshToken();
    const dir = await project('refresh', {
      auth_method: 'oauth2_refresh_token',
      token_url: peer.tokenUrl,
      client_id: peer.clients.refresh.id,
      client_secret: peer.clients.refresh.secret,
      refresh_token: first,
      base_url: peer.apiUrl,
      probe_path: 'health',
      items_path: 'items',
    });
    const one = await cli(['debug', dir]);
    expect(one.code, one.stderr).toBe(0);
    const saved = JSON.parse(await readFile(join(dir, 'configuration.json'), 'utf8')).refresh_token;
    expect(saved).not.toBe(first);
    expect(await peer.refreshTokenActive(saved)).toBe(true);
    const two = await cli(['debug', dir]);
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'configuration.json'), 'utf8')).refresh_token).not.toBe(saved);
    expectNoLeak(
      [one.stdout, one.stderr, two.stdout, two.stderr, await readTree(join(dir, 'files'))],
      [first, ...everySecret()],
    );
  });
});
