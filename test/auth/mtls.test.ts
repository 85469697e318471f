import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import type { RestSource } from '../../src/sources/index.js';
import {
  createCa,
  days,
  encryptedPkcs1,
  encryptedPkcs8,
  issueClient,
  issueServer,
  jsonEscaped,
  pkcs12Base64,
  type Authority,
  type Issued,
} from '../peers/certificates.js';
import { cli, readTree } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { start, type NginxPeer } from '../peers/nginx.js';

/**
 * Mutual TLS against a real nginx with `ssl_verify_client on`: the good certificate passes, every
 * kind of bad certificate fails with the exit code and message it should, certificate problems we
 * can see locally never reach the network, and no private key, passphrase or PKCS#12 body ever
 * shows in an error or a log line.
 */

type Failure = Error & { exitCode: number; key?: string; code: string; hint?: string };

let nginx: NginxPeer;
let ca: Authority;
let client: Issued;
let otherCa: Authority;
const BEARER = 'bearer-over-mtls-7f3c1a9e';

beforeAll(async () => {
  ca = createCa({ commonName: 'Acme Test Root CA' });
  otherCa = createCa({ commonName: 'Stranger CA' });
  client = issueClient(ca, { commonName: 'acme-connector' });
  const server = issueServer(ca);
  nginx = await start({
    serverCertificatePem: server.certificatePem,
    serverKeyPem: server.privateKeyPem,
    clientCaPem: ca.certificatePem,
    bearerToken: BEARER,
  });
});
afterAll(async () => {
  await nginx?.stop();
});

/** Runs authenticate + probe with logs captured raw (the logger's registry is empty: nothing is hidden). */
async function probe(configuration: Record<string, string>) {
  const registry = new SecretRegistry();
  const lines: string[] = [];
  const log = createLogger({
    format: 'json',
    level: 'debug',
    registry: new SecretRegistry(),
    write: (l) => lines.push(l),
  });
  const before = await nginx.connectionsAccepted();
  const logged = (await nginx.accessLog()).length;
  let result: Awaited<ReturnType<Awaited<ReturnType<typeof authenticate>>['probe']>> | undefined;
  let error: Failure | undefined;
  try {
    const auth = await authenticate(
      { base_url: nginx.url, probe_path: 'health', tls_ca_certificate: ca.certificatePem, ...configuration },
      { registry, log },
    );
    try {
      result = await auth.probe();
    } finally {
      await auth.close();
    }
  } catch (e) {
    error = e as Failure;
  }
  const connections = (await nginx.connectionsAccepted()) - before;
  // nginx logs a request after answering it; the probe's line is read once it is written.
  const lastRequest = async () => (await nginx.accessLog(logged + 1)).at(-1)!;
  return { result, error, lines, connections, registry, lastRequest };
}

async function failure(configuration: Record<string, string>) {
  const run = await probe(configuration);
  expect(run.result, 'expected the probe to fail').toBeUndefined();
  return { ...run, error: run.error! };
}

/** Every form in which a secret could leak, for a PEM key, a passphrase or a base64 bundle. */
function leakForms(secret: string): string[] {
  const forms = [
    secret,
    Buffer.from(secret).toString('base64'),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
  ];
  // Each long line of a PEM body on its own.
  for (const line of secret.split('\n'))
    if (line.length >= 16 && !line.startsWith('-----') && !line.includes(':')) forms.push(line);
  return forms;
}

function expectNoLeak(texts: string[], secrets: string[]) {
  const all = texts.join('\n');
  for (const secret of secrets)
    for (const form of leakForms(secret))
      expect(all.includes(form), `leaked a form of a secret: ${form.slice(0, 12)}…`).toBe(false);
}

const pem = (issued: Issued, extra: Record<string, string> = {}) => ({
  auth_method: 'mtls',
  tls_client_certificate: issued.certificatePem,
  tls_client_private_key: issued.privateKeyPem,
  ...extra,
});

describe('mtls against nginx (ssl_verify_client on)', () => {
  it('a good client certificate passes the probe; nginx saw it verified', async () => {
    const { result, error, lines, connections, lastRequest } = await probe(pem(client));
    expect(error).toBeUndefined();
    expect(result!.outcome).toBe('HTTP 200');
    // The counter the "no connection" tests rely on sees this one.
    expect(connections).toBe(1);
    const last = await lastRequest();
    expect(last.verify).toBe('SUCCESS');
    expect(last.subject).toContain('CN=acme-connector');
    expectNoLeak([...lines], [client.privateKeyPem]);
  });

  it('accepts PKCS#1, encrypted PKCS#8 and legacy-encrypted PEM keys, and a JSON-escaped PEM', async () => {
    const passphrase = 'pem-pass-phrase-42';
    for (const configuration of [
      pem(client, { tls_client_private_key: client.privateKeyPkcs1Pem }),
      pem(client, {
        tls_client_private_key: encryptedPkcs8(client, passphrase),
        tls_client_private_key_passphrase: passphrase,
      }),
      pem(client, {
        tls_client_private_key: encryptedPkcs1(client, passphrase),
        tls_client_private_key_passphrase: passphrase,
      }),
      pem(client, {
        tls_client_certificate: jsonEscaped(client.certificatePem),
        tls_client_private_key: jsonEscaped(client.privateKeyPem),
      }),
    ]) {
      const { result, error } = await probe(configuration);
      expect(error?.message).toBeUndefined();
      expect(result!.outcome).toBe('HTTP 200');
    }
  });

  it('PKCS#12 with the right passphrase works', async () => {
    const passphrase = 'p12-correct-horse';
    const bundle = pkcs12Base64(client, passphrase);
    const { result, error, lines } = await probe({
      auth_method: 'mtls',
      tls_client_pkcs12: bundle,
      tls_client_pkcs12_passphrase: passphrase,
    });
    expect(error?.message).toBeUndefined();
    expect(result!.outcome).toBe('HTTP 200');
    expectNoLeak(lines, [bundle, passphrase]);
  });

  it('sends the chain leaf first whatever order the bundle has (intermediate CA, nginx trusts the root only)', async () => {
    const intermediate = createCa({ parent: ca, commonName: 'Acme Issuing CA' });
    const leaf = issueClient(intermediate, { commonName: 'acme-chained' });
    // Pasted as root, intermediate, leaf: the wrong way round.
    const bundle = ca.certificatePem + intermediate.certificatePem + leaf.certificatePem;
    const { result, error, lastRequest } = await probe(pem(leaf, { tls_client_certificate: bundle }));
    expect(error?.message).toBeUndefined();
    expect(result!.outcome).toBe('HTTP 200');
    expect((await lastRequest()).subject).toContain('CN=acme-chained');

    const p12 = pkcs12Base64(leaf, 'chain-pass', [intermediate]);
    const fromBundle = await probe({
      auth_method: 'mtls',
      tls_client_pkcs12: p12,
      tls_client_pkcs12_passphrase: 'chain-pass',
    });
    expect(fromBundle.error?.message).toBeUndefined();
    expect(fromBundle.result!.outcome).toBe('HTTP 200');
  });

  it('Bearer over mTLS: any method with tls_client_* keys presents the certificate', async () => {
    const { result, error, lines } = await probe({
      auth_method: 'bearer',
      token: BEARER,
      probe_path: 'bearer',
      tls_client_certificate: client.certificatePem,
      tls_client_private_key: client.privateKeyPem,
    });
    expect(error?.message).toBeUndefined();
    expect(result!.outcome).toBe('HTTP 200');
    expectNoLeak(lines, [BEARER, client.privateKeyPem]);
  });

  it('no client certificate → exit 3 naming tls_client_certificate (nginx: "No required SSL certificate was sent")', async () => {
    const { error } = await failure({ auth_method: 'bearer', token: BEARER, probe_path: 'bearer' });
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('tls_client_certificate');
    expect(error.message).toContain('requires a client certificate and none is configured');
    expect(error.message).toContain(`GET ${nginx.url}/bearer`);
    expect(error.message).toContain('No required SSL certificate was sent');
    expectNoLeak([error.message, error.hint ?? ''], [BEARER]);
  });

  it('a certificate from another CA → exit 3 naming its subject, issuer and expiry', async () => {
    const stranger = issueClient(otherCa, { commonName: 'stranger-connector' });
    const { error, lines, lastRequest } = await failure(pem(stranger));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('tls_client_certificate');
    expect(error.message).toContain("subject 'CN=stranger-connector, O=connector-auth tests'");
    expect(error.message).toContain("issued by 'CN=Stranger CA, O=connector-auth tests'");
    expect(error.message).toContain(`expires ${stranger.notAfter.toISOString().slice(0, 10)}`);
    expect(error.message).toContain('The SSL certificate error');
    expect(error.hint).toContain('Stranger CA');
    expect((await lastRequest()).verify).toMatch(/^FAILED/);
    expectNoLeak([error.message, error.hint ?? '', ...lines], [stranger.privateKeyPem]);
  });

  it('a server certificate from an unknown CA → exit 5 naming its subject and issuer, pointing to tls_ca_certificate', async () => {
    for (const trust of [{ tls_ca_certificate: otherCa.certificatePem }, { tls_ca_certificate: '' }]) {
      const { error } = await failure({ ...pem(client), ...trust });
      expect(error.exitCode).toBe(5);
      expect(error.code).toBe('tls_untrusted');
      expect(error.key).toBe('tls_ca_certificate');
      expect(error.message).toContain(
        "the server presents a certificate with subject 'CN=127.0.0.1, O=connector-auth tests'",
      );
      expect(error.message).toContain("issued by 'CN=Acme Test Root CA, O=connector-auth tests'");
      expect(error.hint).toContain("'tls_ca_certificate'");
      expectNoLeak([error.message, error.hint ?? ''], [client.privateKeyPem]);
    }
  });

  it("in update() too: request() and fetch() name the untrusted server's certificate, as the probe does", async () => {
    // What a connector's update() meets when the server's certificate changes mid-run.
    const calls = [(s: RestSource) => s.request('health'), (s: RestSource) => s.fetch('health')];
    for (const call of calls) {
      const untrusted = await authenticate(
        { base_url: nginx.url, ...pem(client), tls_ca_certificate: otherCa.certificatePem },
        { registry: new SecretRegistry() },
      );
      try {
        const error = await rejection(call(untrusted.source as RestSource));
        expect(error.exitCode).toBe(5);
        expect(error.message).toContain(
          "the server presents a certificate with subject 'CN=127.0.0.1, O=connector-auth tests'",
        );
      } finally {
        await untrusted.close();
      }
    }
  });

  it('tls_skip_verify never goes unsaid: an unknown server CA passes only with a warning on the run', async () => {
    const { result, lines } = await probe({
      ...pem(client),
      tls_ca_certificate: otherCa.certificatePem,
      tls_skip_verify: 'true',
    });
    expect(result!.outcome).toBe('HTTP 200');
    const warnings = lines
      .map((l) => JSON.parse(l) as { level: string; message: string })
      .filter((l) => l.level === 'WARNING');
    expect(warnings.map((w) => w.message).join('\n')).toContain('TLS verification is OFF');
  });

  it('an expired client certificate → exit 2 with the date, and nginx sees no connection', async () => {
    const expired = issueClient(ca, { commonName: 'expired-connector', notBefore: days(-60), notAfter: days(-3) });
    const { error, connections } = await failure(pem(expired));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('tls_client_certificate');
    expect(error.code).toBe('tls_client_certificate_expired');
    expect(error.message).toContain(`expired on ${expired.notAfter.toISOString().slice(0, 10)}`);
    expect(error.message).toContain("subject 'CN=expired-connector, O=connector-auth tests'");
    expect(connections).toBe(0);
    expectNoLeak([error.message, error.hint ?? ''], [expired.privateKeyPem]);
  });

  it('a certificate not valid yet → exit 2 with the date it starts, no connection', async () => {
    const future = issueClient(ca, { notBefore: days(5), notAfter: days(400) });
    const { error, connections } = await failure(pem(future));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`not valid before ${future.notBefore.toISOString().slice(0, 10)}`);
    expect(connections).toBe(0);
  });

  it('a certificate expiring in 10 days → a warning with the date and days left, and the probe passes', async () => {
    const soon = issueClient(ca, { commonName: 'renew-me', notAfter: days(10) });
    const { result, lines } = await probe(pem(soon));
    expect(result!.outcome).toBe('HTTP 200');
    const warnings = lines
      .map((l) => JSON.parse(l) as { level: string; message: string })
      .filter((l) => l.level === 'WARNING');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain(`expires on ${soon.notAfter.toISOString().slice(0, 10)}`);
    expect(warnings[0]!.message).toContain('10 days left');
    expect(warnings[0]!.message).toContain('CN=renew-me');
  });

  it('PKCS#12 with a wrong passphrase → exit 2 naming tls_client_pkcs12_passphrase, no connection', async () => {
    const bundle = pkcs12Base64(client, 'the-right-one');
    const { error, connections, lines } = await failure({
      auth_method: 'mtls',
      tls_client_pkcs12: bundle,
      tls_client_pkcs12_passphrase: 'not-the-right-one',
    });
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('tls_client_pkcs12_passphrase');
    expect(error.message).toContain('wrong passphrase');
    expect(connections).toBe(0);
    expectNoLeak([error.message, error.hint ?? '', ...lines], [bundle, 'the-right-one', 'not-the-right-one']);
  });

  it('an encrypted PEM key with a wrong or missing passphrase → exit 2 naming the passphrase key', async () => {
    const encrypted = encryptedPkcs8(client, 'pem-right-pass');
    const wrong = await failure(
      pem(client, { tls_client_private_key: encrypted, tls_client_private_key_passphrase: 'pem-wrong-pass' }),
    );
    expect(wrong.error.exitCode).toBe(2);
    expect(wrong.error.key).toBe('tls_client_private_key_passphrase');
    expect(wrong.connections).toBe(0);
    const missing = await failure(pem(client, { tls_client_private_key: encrypted }));
    expect(missing.error.exitCode).toBe(2);
    expect(missing.error.key).toBe('tls_client_private_key_passphrase');
    expect(missing.error.message).toContain('encrypted');
    expectNoLeak([wrong.error.message, missing.error.message], [encrypted, 'pem-right-pass', 'pem-wrong-pass']);
  });

  it('a key that does not match the certificate → exit 2 naming tls_client_private_key, no connection', async () => {
    const other = issueClient(ca);
    const { error, connections } = await failure(pem(client, { tls_client_private_key: other.privateKeyPem }));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('tls_client_private_key');
    expect(error.message).toContain('does not belong to the client certificate');
    expect(connections).toBe(0);
    expectNoLeak([error.message, error.hint ?? ''], [other.privateKeyPem, client.privateKeyPem]);
  });

  it('unreadable PEM or PKCS#12 → exit 2 naming the key', async () => {
    const cases: [Record<string, string>, string][] = [
      [
        pem(client, {
          tls_client_certificate: '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n',
        }),
        'tls_client_certificate',
      ],
      [
        pem(client, {
          tls_client_private_key: '-----BEGIN PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----\n',
        }),
        'tls_client_private_key',
      ],
      [pem(client, { tls_client_certificate: client.privateKeyPem }), 'tls_client_certificate'],
      [{ auth_method: 'mtls', tls_client_pkcs12: 'bm90IGEgYnVuZGxl' }, 'tls_client_pkcs12'],
      [{ auth_method: 'mtls', tls_client_pkcs12: 'this is not base64!' }, 'tls_client_pkcs12'],
      [{ auth_method: 'mtls', tls_client_certificate: client.certificatePem }, 'tls_client_private_key'],
      [{ auth_method: 'mtls' }, 'tls_client_certificate'],
    ];
    for (const [configuration, key] of cases) {
      const { error, connections } = await failure(configuration);
      expect(error.exitCode, error.message).toBe(2);
      expect(error.key, error.message).toBe(key);
      expect(connections).toBe(0);
      expectNoLeak([error.message, error.hint ?? ''], [client.privateKeyPem]);
    }
  });

  it('mtls over http:// → exit 2: a client certificate only travels inside TLS', async () => {
    const { error } = await failure({ ...pem(client), base_url: nginx.url.replace('https:', 'http:') });
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('base_url');
  });

  it('the decrypted key is registered as a secret: a log line that held it would be redacted', async () => {
    const passphrase = 'register-me-please';
    const { registry, result } = await probe({
      auth_method: 'mtls',
      tls_client_pkcs12: pkcs12Base64(client, passphrase),
      tls_client_pkcs12_passphrase: passphrase,
    });
    expect(result!.outcome).toBe('HTTP 200');
    // The bundle's key, decrypted and re-encoded as PKCS#8, is the same PEM the generator made.
    expect(registry.contains(`key: ${client.privateKeyPem}`)).toBe(true);
    expect(registry.redact(client.privateKeyPem)).not.toContain(client.privateKeyPem.split('\n')[1]!);
  });
});

describe('connector-auth debug with mtls (the built CLI; `npm test` builds first)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'connector-auth-mtls-debug-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function project(name: string, configuration: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'connector.ts'),
      `import { defineConnector } from 'connector-auth';

export default defineConnector({
  source: 'rest',
  async update({ source, op }) {
    const health = await source.json<{ ok: boolean; client: string }>('health');
    await op.upsert('health', { id: 1, ok: health.ok, client: health.client });
    await op.checkpoint({ checked: true });
  },
});
`,
    );
    await writeFile(join(dir, 'configuration.json'), JSON.stringify(configuration, null, 2));
    return dir;
  }

  it('exit 0: probe and update() go through the client certificate', async () => {
    const passphrase = 'cli-p12-passphrase';
    const bundle = pkcs12Base64(client, passphrase);
    const dir = await project('good', {
      auth_method: 'mtls',
      base_url: nginx.url,
      probe_path: 'health',
      tls_ca_certificate: ca.certificatePem,
      tls_client_pkcs12: bundle,
      tls_client_pkcs12_passphrase: passphrase,
    });
    const logged = (await nginx.accessLog()).length;
    const run = await cli(['debug', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Sync SUCCEEDED');
    const requests = (await nginx.accessLog(logged + 2)).slice(-2);
    expect(requests.map((r) => `${r.status} ${r.verify}`)).toEqual(['200 SUCCESS', '200 SUCCESS']);
    expectNoLeak(
      [run.stdout, run.stderr, await readTree(join(dir, 'files'))],
      [bundle, passphrase, client.privateKeyPem],
    );
  });

  it('exit 2 for an expired certificate, with the date, nothing sent and nothing leaked', async () => {
    const expired = issueClient(ca, { notBefore: days(-90), notAfter: days(-1) });
    const dir = await project('expired', {
      auth_method: 'mtls',
      base_url: nginx.url,
      probe_path: 'health',
      tls_ca_certificate: ca.certificatePem,
      tls_client_certificate: expired.certificatePem,
      tls_client_private_key: expired.privateKeyPem,
    });
    const before = await nginx.connectionsAccepted();
    const run = await cli(['debug', dir]);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain(`expired on ${expired.notAfter.toISOString().slice(0, 10)}`);
    expect(await nginx.connectionsAccepted()).toBe(before);
    expectNoLeak([run.stdout, run.stderr], [expired.privateKeyPem]);
  });
});
