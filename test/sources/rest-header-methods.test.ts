import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { start, type ExpectedAuth, type HttpApiPeer } from '../peers/http-api.js';
import { rejection } from '../helpers/rejection.js';
import { createCa, issueServer, type Authority } from '../peers/certificates.js';
import { sourceConformance } from './conformance.js';

/** Basic, Bearer and API key against a real HTTP server on loopback. */

let peer: HttpApiPeer | undefined;
afterEach(async () => {
  await peer?.stop();
  peer = undefined;
});

async function run(auth: ExpectedAuth, configuration: Record<string, string>) {
  peer = await start({ auth });
  const registry = new SecretRegistry();
  const lines: string[] = [];
  const log = createLogger({ format: 'json', level: 'debug', registry, write: (l) => lines.push(l) });
  const a = await authenticate({ base_url: peer.url, probe_path: 'health', ...configuration }, { registry, log });
  try {
    const probe = await a.probe();
    const items = await a.source.json<{ items: unknown[] }>('/items');
    return { probe, items, lines, registry };
  } finally {
    await a.close();
  }
}

async function failure(auth: ExpectedAuth, configuration: Record<string, string>) {
  const error = await run(auth, configuration).then(
    () => {
      throw new Error('expected the probe to fail');
    },
    (e: unknown) => e as Error & { exitCode: number; key?: string; code: string },
  );
  return error;
}

describe('basic', () => {
  const expected: ExpectedAuth = { kind: 'basic', username: 'alice', password: 'correct-horse' };
  it('probes and fetches with good credentials', async () => {
    const { probe, items } = await run(expected, {
      auth_method: 'basic',
      username: 'alice',
      password: 'correct-horse',
    });
    expect(probe.outcome).toBe('HTTP 200');
    expect(probe.target).toBe(`GET ${peer!.url}/health`);
    expect(items.items).toHaveLength(10);
  });

  it('a wrong password costs one round trip (exit 3 and the rest: the conformance suite)', async () => {
    const error = await failure(expected, { auth_method: 'basic', username: 'alice', password: 'wrong-horse' });
    expect(error.exitCode).toBe(3);
    expect(peer!.requests).toHaveLength(1);
    for (const leak of ['wrong-horse', Buffer.from('alice:wrong-horse').toString('base64')])
      expect(error.message).not.toContain(leak);
  });
});

describe('bearer', () => {
  it('sends Authorization: Bearer', async () => {
    const { probe } = await run(
      { kind: 'bearer', token: 'tok-abcdef' },
      { auth_method: 'bearer', token: 'tok-abcdef' },
    );
    expect(probe.outcome).toBe('HTTP 200');
    expect(peer!.requests[0]!.headers.authorization).toBe('Bearer tok-abcdef');
  });

  it('rejects a token that starts with the word Bearer (a common paste mistake), before any request', async () => {
    const error = await failure({ kind: 'bearer', token: 'x' }, { auth_method: 'bearer', token: 'Bearer tok-abcdef' });
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('token');
    expect(peer!.requests).toHaveLength(0);
  });
});

describe('api_key', () => {
  it('uses a custom header with a prefix', async () => {
    const { probe } = await run(
      { kind: 'header', name: 'Authorization', value: 'Token key-123456' },
      { auth_method: 'api_key', api_key: 'key-123456', api_key_header: 'Authorization', api_key_prefix: 'Token' },
    );
    expect(probe.outcome).toBe('HTTP 200');
  });

  it('defaults to X-API-Key', async () => {
    await run(
      { kind: 'header', name: 'X-API-Key', value: 'key-123456' },
      { auth_method: 'api_key', api_key: 'key-123456' },
    );
    expect(peer!.requests[0]!.headers['x-api-key']).toBe('key-123456');
  });

  it('can travel in a query parameter, which messages never show', async () => {
    const { probe } = await run(
      { kind: 'query', name: 'key', value: 'key-q-123456' },
      { auth_method: 'api_key', api_key: 'key-q-123456', api_key_location: 'query', api_key_query_param: 'key' },
    );
    expect(probe.target).not.toContain('key-q-123456');
    const error = await failure(
      { kind: 'query', name: 'key', value: 'other' },
      { auth_method: 'api_key', api_key: 'key-q-123456', api_key_location: 'query', api_key_query_param: 'key' },
    );
    expect(error.exitCode).toBe(3);
    expect(error.message).not.toContain('key-q-123456');
  });

  it('requires api_key_query_param for the query location', async () => {
    const error = await failure(
      { kind: 'query', name: 'k', value: 'v' },
      { auth_method: 'api_key', api_key: 'key-123456', api_key_location: 'query' },
    );
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('api_key_query_param');
  });
});

describe('REST source failures', () => {
  it('exit 4 for an unexpected probe status, naming probe_path', async () => {
    peer = await start({ auth: { kind: 'bearer', token: 'tok-abcdef' }, healthStatus: 500 });
    const a = await authenticate(
      { auth_method: 'bearer', token: 'tok-abcdef', base_url: peer.url, probe_path: 'health' },
      { registry: new SecretRegistry() },
    );
    const error = await rejection(a.probe());
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain('answered HTTP 500');
    await a.close();
  });

  it('accepts the statuses listed in probe_expect_status', async () => {
    peer = await start({ auth: { kind: 'bearer', token: 'tok-abcdef' }, healthStatus: 204 });
    const a = await authenticate(
      {
        auth_method: 'bearer',
        token: 'tok-abcdef',
        base_url: peer.url,
        probe_path: 'health',
        probe_expect_status: '200,204',
      },
      { registry: new SecretRegistry() },
    );
    expect((await a.probe()).outcome).toBe('HTTP 204');
    await a.close();
  });

  it('refuses a secret over plain http to a non-loopback host unless allowed', async () => {
    const attempt = (extra: Record<string, string>) =>
      authenticate(
        { auth_method: 'bearer', token: 'tok-abcdef', base_url: 'http://api.example.com', ...extra },
        { registry: new SecretRegistry() },
      );
    const error = await rejection(attempt({}));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('base_url');
    expect(error.message).toContain('plain http://');
    const allowed = await attempt({ allow_plain_http: 'true' });
    await allowed.close();
  });

  it('joins paths below base_url, keeping its path', async () => {
    const { resolveUrl } = await import('../../src/sources/rest/index.js');
    const base = new URL('https://x.example/api/v2/');
    expect(resolveUrl(base, '/items').href).toBe('https://x.example/api/v2/items');
    expect(resolveUrl(base, 'items?a=1').href).toBe('https://x.example/api/v2/items?a=1');
    expect(resolveUrl(base, 'https://other.example/x').href).toBe('https://other.example/x');
  });
});

describe('configuration errors', () => {
  const attempt = (configuration: Record<string, string>) =>
    rejection(authenticate(configuration, { registry: new SecretRegistry() }));

  it('lists the valid methods for an unknown auth_method', async () => {
    const error = await attempt({ auth_method: 'ntlm', base_url: 'https://x.example' });
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('auth_method');
    expect(error.message).toMatch(/valid methods: .*basic.*bearer.*api_key/);
  });

  it('names a missing key', async () => {
    const error = await attempt({ auth_method: 'basic', username: 'u', base_url: 'https://x.example' });
    expect(error.key).toBe('password');
    expect(error.message).toContain("key 'password' is missing");
  });

  it('names a malformed key without its value', async () => {
    const error = await attempt({ auth_method: 'bearer', token: 'tok-abcdef', base_url: 'not a url' });
    expect(error.key).toBe('base_url');
    expect(error.message).not.toContain('not a url');
  });
});

describe('REST source conformance peers', () => {
  // The suite's peers: Basic over http, and over https with a certificate from a CA of the test's own.
  let ca: Authority;
  let api: HttpApiPeer;
  let secureApi: HttpApiPeer;
  const PASSWORD = 'correct-horse-battery';
  const basic = (server: HttpApiPeer, extra: Record<string, string> = {}) => ({
    auth_method: 'basic',
    username: 'alice',
    password: PASSWORD,
    base_url: server.url,
    probe_path: 'health',
    ...extra,
  });
  beforeAll(async () => {
    ca = createCa();
    const certificate = issueServer(ca);
    const auth: ExpectedAuth = { kind: 'basic', username: 'alice', password: PASSWORD };
    [api, secureApi] = await Promise.all([
      start({ auth }),
      start({ auth, tls: { certificatePem: certificate.certificatePem, privateKeyPem: certificate.privateKeyPem } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), secureApi?.stop()]);
  });

  sourceConformance({
    source: 'rest',
    good: () => basic(secureApi, { tls_ca_certificate: ca.certificatePem }),
    outcome: 'HTTP 200',
    probeLine: () => `GET ${secureApi.url}/health → HTTP 200`,
    upserts: 10,
    wrongCredentials: [
      {
        name: 'a wrong password',
        config: (wrong) => basic(api, { password: wrong }),
        key: 'password',
        message: { contains: ["basic auth as 'alice'", '401'] },
      },
    ],
    unreachable: {
      config: (port) => basic(api, { base_url: `http://127.0.0.1:${port}` }),
      key: 'base_url',
      message: { contains: ['connection refused'] },
    },
    silent: (port) => basic(api, { base_url: `http://127.0.0.1:${port}`, timeout_seconds: '0.5' }),
    untrusted: [
      {
        name: 'an https server whose CA is not in tls_ca_certificate',
        config: () => basic(secureApi),
        key: 'tls_ca_certificate',
        code: 'tls_untrusted',
      },
    ],
    secrets: () => [PASSWORD],
    connector: `import { defineConnector } from 'connector-auth';
export default defineConnector({
  source: 'rest',
  schema: () => [{ table: 'items', primary_key: ['id'] }],
  async update({ source, op }) {
    const page = await source.json('/items');
    for (const item of page.items) await op.upsert('items', item);
    await op.checkpoint({ done: true });
  },
});
`,
  });
});
