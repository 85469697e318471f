import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { start, type OidcPeer } from '../../peers/oidc-provider.js';
import { airbyte, configuredCatalog, expectNoSecretOutsideControl, jsonFile, type AirbyteRun } from './support.js';

/**
 * A rotated refresh token under Airbyte: oidc-provider with rotation on (each refresh consumes the
 * token and issues a new one). check, discover and read each refresh once, so each must hand the
 * new token to Airbyte in a CONTROL message (CONNECTOR_CONFIG) before using it — a token rotated
 * during a check and not emitted is lost for good. Each run here starts from the configuration
 * the previous run's CONTROL message carried, as Airbyte stores it.
 */

let peer: OidcPeer;
let root: string;
beforeAll(async () => {
  [peer, root] = await Promise.all([start(), mkdtemp(join(tmpdir(), 'connector-auth-airbyte-oauth-'))]);
});
afterAll(async () => {
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

const everySecret = () =>
  [peer.clients.refresh.secret, ...peer.seen.accessTokens, ...peer.seen.refreshTokens].flatMap((s) => leakForms(s));

/** The one CONTROL message of a run, checked to come before the probe's success is logged. */
function control(run: AirbyteRun): Record<string, any> {
  const controls = run.of('CONTROL');
  expect(controls, run.stdout).toHaveLength(1);
  expect(controls[0]!.control).toMatchObject({ type: 'CONNECTOR_CONFIG', emitted_at: expect.any(Number) });
  const at = run.messages.indexOf(controls[0]!);
  const probed = run.messages.findIndex((m) => m.type === 'LOG' && m.log.message.startsWith('probe succeeded'));
  if (probed >= 0) expect(at).toBeLessThan(probed);
  return controls[0]!.control.connectorConfig.config;
}

describe('airbyte: a rotated refresh token is sent as a CONTROL message by every command that refreshes', () => {
  it("check → discover → read, each from the configuration the last CONTROL carried, in Airbyte's nested form", async () => {
    const dir = await initTemplate(root, 'nested', 'rest-api');
    const first = await peer.issueRefreshToken();
    const given = {
      auth_method: {
        auth_method: 'oauth2_refresh_token',
        token_url: peer.tokenUrl,
        client_id: peer.clients.refresh.id,
        client_secret: peer.clients.refresh.secret,
        refresh_token: first,
      },
      base_url: peer.apiUrl,
      probe_path: 'health',
      items_path: 'items',
      timeout_seconds: 10,
    };

    const check = await airbyte(['check', dir, '--config', await jsonFile(dir, 'c1.json', given)]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.of('CONNECTION_STATUS')[0]!.connectionStatus.status).toBe('SUCCEEDED');
    const afterCheck = control(check);
    const second = afterCheck.auth_method.refresh_token as string;
    expect(second).not.toBe(first);
    // Everything else as Airbyte gave it, the number included.
    expect(afterCheck).toEqual({ ...given, auth_method: { ...given.auth_method, refresh_token: second } });
    expect(await peer.refreshTokenActive(first)).toBe(false);
    expect(await peer.refreshTokenActive(second)).toBe(true);

    const discover = await airbyte(['discover', dir, '--config', await jsonFile(dir, 'c2.json', afterCheck)]);
    expect(discover.code, discover.stderr).toBe(0);
    expect(discover.of('CATALOG')[0]!.catalog.streams.map((s: { name: string }) => s.name)).toEqual(['items']);
    const third = control(discover).auth_method.refresh_token as string;
    expect(third).not.toBe(second);

    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const read = await airbyte([
      'read',
      dir,
      '--config',
      await jsonFile(dir, 'c3.json', control(discover)),
      '--catalog',
      catalog,
    ]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.of('RECORD').length).toBeGreaterThan(0);
    const fourth = control(read).auth_method.refresh_token as string;
    expect(await peer.refreshTokenActive(fourth)).toBe(true);
    expect(new Set([first, second, third, fourth]).size).toBe(4);

    // The CONTROL lines are the only ones that carry a secret.
    for (const run of [check, discover, read]) expectNoSecretOutsideControl(run, everySecret());
  });

  it('a flat configuration gets a flat one back; the old token, replayed, is refused as a config_error naming refresh_token', async () => {
    const dir = await initTemplate(root, 'flat', 'rest-api');
    const first = await peer.issueRefreshToken();
    const given = {
      auth_method: 'oauth2_refresh_token',
      token_url: peer.tokenUrl,
      client_id: peer.clients.refresh.id,
      client_secret: peer.clients.refresh.secret,
      refresh_token: first,
      base_url: peer.apiUrl,
      probe_path: 'health',
      items_path: 'items',
    };
    const catalog = await jsonFile(dir, 'catalog.json', configuredCatalog([{ name: 'items' }]));
    const read = await airbyte(['read', dir, '--config', await jsonFile(dir, 'c1.json', given), '--catalog', catalog]);
    expect(read.code, read.stderr).toBe(0);
    const updated = control(read);
    expect(Object.keys(updated)).toEqual(Object.keys(given));
    expect(updated.refresh_token).not.toBe(first);

    // Had Airbyte not stored it, the next run would start from the consumed token.
    const replay = await airbyte([
      'read',
      dir,
      '--config',
      await jsonFile(dir, 'c2.json', given),
      '--catalog',
      catalog,
    ]);
    expect(replay.code).toBe(3);
    expect(replay.of('CONTROL')).toEqual([]);
    expect(replay.of('TRACE').filter((m) => m.trace.type === 'ERROR')[0]!.trace.error).toMatchObject({
      failure_type: 'config_error',
      message: expect.stringContaining('refresh_token'),
    });
    for (const run of [read, replay]) expectNoSecretOutsideControl(run, everySecret());
  });
});
