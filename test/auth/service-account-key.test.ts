import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { connect, expectNoLeak, harness, rejection } from './support.js';

/** service_account_key: a JWT bearer grant (RFC 7523) against oidc-provider's registered grant handler. */

let peer: OidcPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer.stop();
});

const configuration = (key: string, extra: Record<string, string> = {}) => ({
  auth_method: 'service_account_key',
  service_account_key: key,
  scope: 'api:read',
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

/** The private key's body lines and the whole key: what must never be printed. */
const keyMaterial = (json: string) => {
  const pem = JSON.parse(json).private_key as string;
  return [json, pem, ...pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))];
};
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('service_account_key against oidc-provider', () => {
  it('a good RSA key: RS256 assertion (kid, iss = sub = client_email, aud = token_uri, iat in the past, ≤ 1 h), probe succeeds', async () => {
    const h = harness();
    const sa = peer.serviceAccounts.rsa;
    const before = Date.now();
    const a = await connect(h, configuration(sa.json));
    try {
      const probe = await a.probe();
      expect(probe.outcome).toBe('HTTP 200');
      expect(a.credential.description).toBe(`service account '${sa.email}'`);
    } finally {
      await a.close();
    }
    const verified = peer.assertions.at(-1)!;
    expect(verified.header).toMatchObject({ alg: 'RS256', kid: sa.keyId, typ: 'JWT' });
    const claims = verified.payload as Record<string, number | string>;
    expect(claims).toMatchObject({ iss: sa.email, sub: sa.email, aud: peer.tokenUrl, scope: 'api:read' });
    expect(Number(claims.iat) * 1000).toBeLessThan(before - 10_000);
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(3600);
    expect(peer.tokenRequests('urn:ietf:params:oauth:grant-type:jwt-bearer')).toBeGreaterThanOrEqual(1);
    expectNoLeak(h.lines, [...keyMaterial(sa.json), ...peer.seen.assertions, ...peer.seen.accessTokens]);
  });

  it('an EC key signs with ES256; the key may come base64-encoded', async () => {
    const h = harness();
    const sa = peer.serviceAccounts.ec;
    const a = await connect(h, configuration(Buffer.from(sa.json).toString('base64')));
    try {
      expect((await a.probe()).outcome).toBe('HTTP 200');
    } finally {
      await a.close();
    }
    expect(peer.assertions.at(-1)!.header).toMatchObject({ alg: 'ES256', kid: sa.keyId });
    expectNoLeak(h.lines, [...keyMaterial(sa.json), ...peer.seen.assertions, ...peer.seen.accessTokens]);
  });

  it('a key the server does not know: AuthenticationError (exit 3) naming service_account_key, no key material anywhere', async () => {
    const h = harness();
    const sa = peer.serviceAccounts.rsa;
    const before = peer.seen.assertions.length;
    const a = await connect(h, configuration(sa.unknownKeyJson));
    try {
      const error = await rejection(a.probe());
      expect(error.name).toBe('AuthenticationError');
      expect(error.exitCode).toBe(3);
      expect(error.key).toBe('service_account_key');
      expect(error.message).toContain('invalid_grant');
      expect(error.message).toContain(`service account '${sa.email}'`);
      const sent = peer.seen.assertions.slice(before);
      expect(sent).toHaveLength(1);
      expect(decode(sent[0]!.split('.')[0]!).kid).toBe(sa.keyId);
      expectNoLeak([error.message, String(error.hint), ...h.lines], [...keyMaterial(sa.unknownKeyJson), ...sent]);
    } finally {
      await a.close();
    }
  });

  it('a malformed key: ConfigurationError (exit 2) naming service_account_key, nothing sent', async () => {
    const h = harness();
    const before = peer.tokenRequests();
    for (const bad of [
      '{"client_email": "x@y"',
      JSON.stringify({ client_email: 'x@y' }),
      JSON.stringify({ client_email: 'x@y', private_key: 'not a key at all, really' }),
    ]) {
      const error = await rejection(connect(h, configuration(bad)));
      expect(error.exitCode).toBe(2);
      expect(error.key).toBe('service_account_key');
      expect(error.message).not.toContain('not a key at all');
    }
    expect(peer.tokenRequests()).toBe(before);
  });

  it('a token_uri over plain http to a non-loopback host is refused (exit 2)', async () => {
    const h = harness();
    const json = JSON.stringify({
      ...JSON.parse(peer.serviceAccounts.rsa.json),
      token_uri: 'http://oauth.example.com/token',
    });
    const error = await rejection(connect(h, configuration(json)));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('service_account_key');
    expectNoLeak([error.message, ...h.lines], keyMaterial(json));
  });

  it('a key issued more than 30 days ago: a rotation warning with the age and the 30-day rule', async () => {
    const h = harness();
    const issued = new Date(Date.now() - 45 * 86_400_000).toISOString().slice(0, 10);
    const a = await connect(h, configuration(peer.serviceAccounts.rsa.json, { credential_issued_at: issued }));
    await a.close();
    const warning = h.lines.map((l) => JSON.parse(l)).find((l) => l.level === 'WARNING');
    expect(warning?.message).toMatch(/service_account_key credential is 4[45] days old/);
    expect(warning?.message).toContain('every 30 days');
  });
});
