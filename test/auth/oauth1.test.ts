import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'oauth-sign';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, initTemplate, readTree } from '../helpers/cli.js';
import { closedPort, start, type HttpApiPeer } from '../peers/http-api.js';
import { connect, docExample, expectNoLeak, harness } from './support.js';

/**
 * oauth1: OAuth 1.0a signatures, as NetSuite's token-based authentication takes them. The peer is an
 * API on 127.0.0.1 that recomputes each signature with `oauth-sign` (request's signer, an
 * implementation that is not ours) from the Authorization header, the query and a form body, and
 * refuses a nonce it has seen.
 */

const CONSUMER = { key: 'ck-4c8f1e0a9b2d', secret: 'cs-7d1e2f3a4b5c6d7e' };
const TOKEN = { key: 'tk-0a1b2c3d4e5f', secret: 'ts-9f8e7d6c5b4a3210' };
const REALM = '1234567_SB1';

/** What the peer accepted: signature method, realm and the parameters it signed, per request. */
const accepted: { method: string; realm: string | undefined; signed: Record<string, string | string[]> }[] = [];
const nonces = new Set<string>();

function header(value: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [, k, v] of value.replace(/^OAuth\s+/, '').matchAll(/([\w]+)="([^"]*)"/g))
    fields.set(k!, decodeURIComponent(v!));
  return fields;
}

/** The parameters as oauth-sign takes them: repeated names as arrays. */
function collect(pairs: Iterable<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of pairs) {
    const had = out[k];
    out[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  return out;
}

let api: HttpApiPeer;
let root: string;
beforeAll(async () => {
  api = await start({
    items: 3,
    auth: {
      kind: 'verify',
      accepts: async ({ method, url, headers, body }) => {
        const fields = header(headers.authorization ?? '');
        const nonce = fields.get('oauth_nonce');
        if (fields.get('oauth_consumer_key') !== CONSUMER.key || fields.get('oauth_token') !== TOKEN.key) return false;
        if (!nonce || nonces.has(nonce)) return false;
        const form = /x-www-form-urlencoded/.test(headers['content-type'] ?? '') ? new URLSearchParams(body) : [];
        const protocol = [...fields].filter(([k]) => k !== 'oauth_signature' && k !== 'realm');
        const signed = collect([...url.searchParams, ...form, ...protocol]);
        const base = `http://${headers.host}${url.pathname}`;
        const expected = sign(
          fields.get('oauth_signature_method')!,
          method,
          base,
          signed,
          CONSUMER.secret,
          TOKEN.secret,
        );
        if (expected !== fields.get('oauth_signature')) return false;
        nonces.add(nonce);
        accepted.push({ method: fields.get('oauth_signature_method')!, realm: fields.get('realm'), signed });
        return true;
      },
    },
  });
  root = await mkdtemp(join(tmpdir(), 'connector-auth-oauth1-'));
});
afterAll(async () => {
  await api?.stop();
  await rm(root, { recursive: true, force: true });
});

const configuration = (extra: Record<string, string> = {}) => ({
  auth_method: 'oauth1',
  oauth1_consumer_key: CONSUMER.key,
  oauth1_consumer_secret: CONSUMER.secret,
  oauth1_token: TOKEN.key,
  oauth1_token_secret: TOKEN.secret,
  oauth1_realm: REALM,
  base_url: api.url,
  probe_path: 'health',
  items_path: 'items',
  ...extra,
});
const secrets = [CONSUMER.key, CONSUMER.secret, TOKEN.key, TOKEN.secret];

let projects = 0;
const project = (values: Record<string, string>) =>
  initTemplate(root, `p${projects++}`, 'rest-api', values, { replaceConfiguration: true, auth: ['oauth1'] });

describe('oauth1 through connector-auth debug, checked by oauth-sign', () => {
  it.each(['HMAC-SHA256', 'HMAC-SHA1'])('%s with a realm: exit 0, rows synced, nothing leaks', async (method) => {
    const seen = accepted.length;
    const dir = await project(configuration({ oauth1_signature_method: method }));
    const run = await cli(['debug', dir, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    const mine = accepted.slice(seen);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((a) => a.method === method && a.realm === REALM)).toBe(true);
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], secrets);
  });

  it('the example of docs/auth/oauth1.md, its credentials as written there, its paths those of the peer: exit 0', async () => {
    const dir = await project({
      ...(await docExample('oauth1.md')),
      base_url: api.url,
      probe_path: 'health',
      items_path: 'items',
    });
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Upserts\s+\|\s+3/);
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], secrets);
  });

  it('a wrong token secret: exit 3 naming oauth1_token_secret, nothing leaks', async () => {
    const dir = await project(configuration({ oauth1_token_secret: 'ts-revoked-0000000' }));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('oauth1_token_secret');
    expectNoLeak([run.stdout, run.stderr, await readTree(join(dir, 'files'))], [...secrets, 'ts-revoked-0000000']);
  });

  it('an API that does not answer: exit 4', async () => {
    const dir = await project(configuration({ base_url: `http://127.0.0.1:${await closedPort()}` }));
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(4);
    expectNoLeak([run.stdout, run.stderr], secrets);
  });
});

describe('oauth1 signs the query and a form body', () => {
  it('a POST with a form body and a query, repeated and reserved characters: accepted, every parameter signed', async () => {
    const h = harness();
    const { items_path: _items, ...values } = configuration();
    const a = await connect(h, values);
    try {
      const seen = accepted.length;
      const query = 'health?q=a%20b&q=%2A%21&z=%E2%9C%93&empty=';
      const form = new URLSearchParams([
        ['status', 'Hello Ladies + Gentlemen, a signed OAuth request!'],
        ['a', '1'],
      ]);
      const answer = await a.source.fetch(query, { method: 'POST', body: form });
      expect(answer.status).toBe(200);
      const string = await a.source.fetch(query, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'b=%7E%20x&b=2',
      });
      expect(string.status).toBe(200);
      const [first, second] = accepted.slice(seen);
      expect(first!.signed).toMatchObject({ q: ['a b', '*!'], z: '✓', empty: '', status: form.get('status'), a: '1' });
      expect(second!.signed).toMatchObject({ b: ['~ x', '2'] });
    } finally {
      await a.close();
    }
  });
});
