import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTemplate, leakForms } from '../../helpers/cli.js';
import { start, type OidcPeer } from '../../peers/oidc-provider.js';
import { connectorClient, startServe, type ServeProcess } from './support.js';

/**
 * A single-use refresh token under `serve`, against oidc-provider with rotation on
 * (test/peers/oidc-provider.ts): every refresh consumes the token it sends and answers a new one.
 * Fivetran resends the configuration it was given at setup with every call, so after the first
 * rotation the configured `refresh_token` is spent. The decision (docs/decisions.md, "Hosting on
 * Fivetran"): the newest value lives in the server's memory and, sealed, in the state each Update
 * checkpoints, which Fivetran stores and sends back; a Test cannot carry it anywhere durable.
 */

let peer: OidcPeer;
let root: string;
let project: string;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  [peer, root] = await Promise.all([start(), mkdtemp(join(tmpdir(), 'connector-auth-serve-rotation-'))]);
  project = await initTemplate(root, 'api', 'rest-api');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await peer?.stop();
  await rm(root, { recursive: true, force: true });
});

async function server(): Promise<{ serve: ServeProcess; client: ReturnType<typeof connectorClient> }> {
  const serve = await startServe(project);
  servers.push(serve);
  return { serve, client: connectorClient(serve.port) };
}

const configuration = (refreshToken: string) => ({
  auth_method: 'oauth2_refresh_token',
  token_url: peer.tokenUrl,
  client_id: peer.clients.refresh.id,
  client_secret: peer.clients.refresh.secret,
  refresh_token: refreshToken,
  base_url: peer.apiUrl,
  probe_path: 'health',
  items_path: 'items',
});

const lastState = (checkpoints: string[]) => checkpoints.at(-1)!;

describe('serve: a refresh token the authorization server rotates', () => {
  it('survives Updates, a Test, two calls at once and a restart of the server; never printed or stored in clear', async () => {
    const configured = await peer.issueRefreshToken();
    const a = await server();

    // Update 1: the probe rotates the configured token; the new one is checkpointed, sealed, before the sync goes on.
    const first = await a.client.update({ configuration: configuration(configured) });
    expect(first.error).toBeUndefined();
    expect(first.records).toHaveLength(2);
    const t1 = peer.seen.refreshTokens.at(-1)!;
    expect(await peer.refreshTokenActive(configured)).toBe(false);
    expect(await peer.refreshTokenActive(t1)).toBe(true);
    const states1 = first.messages.filter((m) => m.checkpoint).map((m) => m.checkpoint!.state_json);
    // The rotation's checkpoint comes first (the request's empty state with the sealed token), then the template's.
    expect(JSON.parse(states1[0]!)).toEqual({
      _connector_auth: { rotated: { refresh_token: expect.stringMatching(/^v1\./) } },
    });
    expect(JSON.parse(lastState(states1))).toMatchObject({
      synced_at: expect.any(String),
      _connector_auth: { rotated: { refresh_token: expect.any(String) } },
    });

    // A Test in the same server uses the newest token (its memory), not the spent one it is sent.
    expect(await a.client.test(configuration(configured))).toMatchObject({ success: true });
    const t2 = peer.seen.refreshTokens.at(-1)!;
    expect(t2).not.toBe(t1);
    await a.serve.until(/rotated 'refresh_token' during Test/);

    // Update 2: the server holds a token newer than the state carries (the Test's): checkpointed first.
    const second = await a.client.update({ configuration: configuration(configured), state_json: lastState(states1) });
    expect(second.error).toBeUndefined();
    expect(second.messages[0]!.checkpoint).toBeDefined();
    const states2 = second.messages.filter((m) => m.checkpoint).map((m) => m.checkpoint!.state_json);

    // The server restarts: its memory is gone, the state Fivetran kept has the newest token, sealed.
    expect(await a.serve.stop()).toBe(0);
    const b = await server();
    const third = await b.client.update({ configuration: configuration(configured), state_json: lastState(states2) });
    expect(third.error).toBeUndefined();
    expect(third.records).toHaveLength(2);

    // Two Tests at once with the same configuration: one exchange at a time, each with the newest token.
    // The first exchange is slowed down, so the second call arrives while it is under way.
    peer.delayNextTokenRequest(400);
    const before = peer.tokenRequests('refresh_token');
    const both = await Promise.all([
      b.client.test(configuration(configured)),
      b.client.test(configuration(configured)),
    ]);
    expect(both).toEqual([expect.objectContaining({ success: true }), expect.objectContaining({ success: true })]);
    expect(peer.tokenRequests('refresh_token') - before).toBe(2);
    const newest = peer.seen.refreshTokens.at(-1)!;
    expect(await peer.refreshTokenActive(newest)).toBe(true);

    // Nothing printed holds a token, the client secret or an access token; no state holds one in clear.
    const states = [
      ...states1,
      ...states2,
      ...third.messages.filter((m) => m.checkpoint).map((m) => m.checkpoint!.state_json),
    ];
    const secrets = [configured, ...peer.seen.refreshTokens, ...peer.seen.accessTokens, peer.clients.refresh.secret];
    const printed = [a.serve, b.serve].map((s) => s.stdout() + s.stderr()).join('\n');
    for (const secret of secrets)
      for (const form of leakForms(secret)) {
        expect(printed).not.toContain(form);
        expect(states.join('\n')).not.toContain(form);
      }
  });

  it('a state sealed under another configured token (the user authorized again) is ignored: the configuration wins', async () => {
    const { client } = await server();
    const old = await peer.issueRefreshToken();
    const first = await client.update({ configuration: configuration(old) });
    expect(first.error).toBeUndefined();
    const state = first.messages.filter((m) => m.checkpoint).at(-1)!.checkpoint!.state_json;
    const fresh = await peer.issueRefreshToken();
    const next = await client.update({ configuration: configuration(fresh), state_json: state });
    expect(next.error).toBeUndefined();
    expect(await peer.refreshTokenActive(fresh)).toBe(false);
    expect(await peer.refreshTokenActive(peer.seen.refreshTokens.at(-1)!)).toBe(true);
  });

  it('a fresh server Test with only the spent configured token fails naming refresh_token; an Update then also asks for a new authorization (Task)', async () => {
    const configured = await peer.issueRefreshToken();
    const { serve: a, client: ca } = await server();
    expect((await ca.update({ configuration: configuration(configured) })).error).toBeUndefined();
    await a.stop();
    // What Test cannot see: the state. A Test on a new server sends the spent token and is refused.
    const { client } = await server();
    const test = await client.test(configuration(configured));
    expect(test.failure).toMatch(/\[oauth_invalid_grant\].*'refresh_token'/);
    const update = await client.update({ configuration: configuration(configured) });
    expect(update.error?.code).toBe(16);
    expect(update.error?.details).toMatch(/'refresh_token'/);
    const task = update.messages.find((m) => m.operation === 'task') as { task?: { message: string } } | undefined;
    expect(task?.task?.message).toMatch(/Authorize again .*refresh token/);
  });
});
