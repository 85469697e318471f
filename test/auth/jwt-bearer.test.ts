import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { closedPort, start, type HttpApiPeer } from '../peers/http-api.js';
import { connect, docExample, expectNoLeak, harness } from './support.js';

/**
 * jwt_bearer: a JWT the connector signs itself. The peer is an API on 127.0.0.1 that checks each
 * bearer with jose's jwtVerify and the PUBLIC key (or the shared secret for HS256), the issuer, the
 * audience and a lifetime of at most 10 minutes, as GitHub checks an App's JWT: our signer is not
 * what judges it.
 */

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const hsSecret = 'a shared secret of thirty-two bytes or more, for HS256';
const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string;

const APP_ID = '123456';
const AUDIENCE = 'https://api.example.test';

/** What the peer saw: the verified claims and protected header of each accepted JWT. */
const accepted: { alg: string; kid: string | undefined; iss: unknown; sub: unknown; iat: number; exp: number }[] = [];

async function verifier(key: KeyObject | Uint8Array, algorithms: string[]): Promise<HttpApiPeer> {
  return start({
    items: 3,
    auth: {
      kind: 'verify',
      accepts: async ({ headers }) => {
        const jwt = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
        if (!jwt) return false;
        try {
          const { payload, protectedHeader } = await jwtVerify(jwt, key, {
            issuer: APP_ID,
            audience: AUDIENCE,
            algorithms,
          });
          if (payload.exp! - payload.iat! > 11 * 60) return false;
          accepted.push({
            alg: protectedHeader.alg,
            kid: protectedHeader.kid,
            iss: payload.iss,
            sub: payload.sub,
            iat: payload.iat!,
            exp: payload.exp!,
          });
          return true;
        } catch {
          return false;
        }
      },
    },
  });
}

let rsaApi: HttpApiPeer;
let ecApi: HttpApiPeer;
let hsApi: HttpApiPeer;
let root: string;
beforeAll(async () => {
  [rsaApi, ecApi, hsApi] = await Promise.all([
    verifier(rsa.publicKey, ['RS256']),
    verifier(ec.publicKey, ['ES256']),
    verifier(new TextEncoder().encode(hsSecret), ['HS256']),
  ]);
  root = await mkdtemp(join(tmpdir(), 'connector-auth-jwt-bearer-'));
});
afterAll(async () => {
  await Promise.all([rsaApi?.stop(), ecApi?.stop(), hsApi?.stop()]);
  await rm(root, { recursive: true, force: true });
});

const configuration = (api: HttpApiPeer, key: Record<string, string>) => ({
  auth_method: 'jwt_bearer',
  ...key,
  jwt_issuer: APP_ID,
  jwt_audience: AUDIENCE,
  base_url: api.url,
  probe_path: 'health',
  items_path: 'items',
});

let projects = 0;
const project = (values: Record<string, string>) =>
  initTemplate(root, `p${projects++}`, 'rest-api', values, { replaceConfiguration: true, auth: ['jwt_bearer'] });

describe('jwt_bearer through connector-auth debug, verified by jose with the public key', () => {
  it.each([
    ['RS256', () => rsaApi, { jwt_private_key: pem(rsa.privateKey), jwt_key_id: 'rsa-1' }],
    ['ES256', () => ecApi, { jwt_private_key: pem(ec.privateKey) }],
    ['HS256', () => hsApi, { jwt_secret: hsSecret }],
  ] as const)('%s: exit 0, rows synced, the JWT as GitHub wants it, nothing leaks', async (alg, api, key) => {
    const seen = accepted.length;
    const dir = await project(configuration(api(), key));
    const run = await cli(['debug', dir, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    const jwts = accepted.slice(seen);
    expect(jwts.length).toBeGreaterThanOrEqual(2);
    expect(jwts.every((j) => j.alg === alg && j.iss === APP_ID && j.exp - j.iat <= 11 * 60)).toBe(true);
    if ('jwt_key_id' in key) expect(jwts[0]!.kid).toBe('rsa-1');
    // Signed once for the run, not once per request.
    expect(new Set(jwts.map((j) => `${j.iat}`)).size).toBe(1);
    const sent = api()
      .requests.slice(-jwts.length)
      .map((r) => r.headers.authorization!.slice(7));
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], [...Object.values(key), ...sent]);
  });

  it('the example of docs/auth/jwt-bearer.md, as written there with base_url pointed at the API: exit 0', async () => {
    const example = await docExample('jwt-bearer.md');
    const dir = await project({ ...example, base_url: hsApi.url });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], [example.jwt_secret]);
  });

  it('a key the API does not know: exit 3 naming jwt_private_key, nothing leaks', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = await project(configuration(rsaApi, { jwt_private_key: pem(other.privateKey) }));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('jwt_private_key');
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], [pem(other.privateKey)]);
  });

  it('a wrong HS256 secret: exit 3 naming jwt_secret', async () => {
    const dir = await project(configuration(hsApi, { jwt_secret: `${hsSecret} (old)` }));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('jwt_secret');
    expectNoLeak([run.stdout, run.stderr], [`${hsSecret} (old)`]);
  });

  it('an API that does not answer: exit 4', async () => {
    const values = configuration(rsaApi, { jwt_private_key: pem(rsa.privateKey) });
    const dir = await project({ ...values, base_url: `http://127.0.0.1:${await closedPort()}` });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(4);
    expectNoLeak([run.stdout, run.stderr], [pem(rsa.privateKey)]);
  });
});

describe('jwt_bearer re-signs before expiry', () => {
  it('twenty requests at once: one JWT signed, carried by every one', async () => {
    // ES256 signatures are randomized: two signings of the same claims would differ.
    const h = harness();
    const a = await connect(h, configuration(ecApi, { jwt_private_key: pem(ec.privateKey) }));
    try {
      const before = ecApi.requests.length;
      await Promise.all(Array.from({ length: 20 }, () => a.source.json('items')));
      const sent = new Set(ecApi.requests.slice(before).map((r) => r.headers.authorization));
      expect(sent.size).toBe(1);
    } finally {
      await a.close();
    }
  });

  it('a 10-minute JWT is signed again once 9 minutes 56 seconds have passed, not before', async () => {
    const h = harness();
    const a = await connect(h, configuration(rsaApi, { jwt_private_key: pem(rsa.privateKey) }), { fakeClock: true });
    try {
      const seen = accepted.length;
      await a.source.json('items');
      h.clock.advance(9 * 60_000);
      await a.source.json('items');
      h.clock.advance(56_000);
      await a.source.json('items');
      const iats = accepted.slice(seen).map((j) => j.iat);
      expect(new Set(iats).size).toBe(2);
    } finally {
      await a.close();
    }
  });
});
