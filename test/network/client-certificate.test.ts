import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClientCertificate, readTlsSettings } from '../../src/network/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { createCa, days, encryptedPkcs1, encryptedPkcs8, issueClient, pkcs12Base64 } from '../peers/certificates.js';
import { OPENSSL_HINT } from './openssl-server.js';

/** Reading and checking client certificates before any connection: forms, chain order, validity. */

type Failure = Error & { exitCode: number; key?: string; code: string };
const now = () => Date.now();

async function rejects(promise: Promise<unknown>): Promise<Failure> {
  return promise.then(
    () => {
      throw new Error('expected a ConfigurationError');
    },
    (e: unknown) => e as Failure,
  );
}

describe('loadClientCertificate', () => {
  const ca = createCa({ commonName: 'Unit Root' });
  const intermediate = createCa({ parent: ca, commonName: 'Unit Issuing' });
  const leaf = issueClient(intermediate, { commonName: 'unit-client' });

  it('orders the chain leaf first and drops certificates that sign nothing in it', async () => {
    const unrelated = createCa({ commonName: 'Unrelated' });
    const loaded = await loadClientCertificate(
      {
        certificate: unrelated.certificatePem + ca.certificatePem + intermediate.certificatePem + leaf.certificatePem,
        privateKey: leaf.privateKeyPem,
      },
      { now: now() },
    );
    const chain = loaded.certificateChainPem
      .match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)!
      .map((p) => new X509Certificate(p));
    expect(chain.map((c) => c.subject.split('\n')[0])).toEqual(['CN=unit-client', 'CN=Unit Issuing', 'CN=Unit Root']);
    expect(loaded.summary).toMatchObject({
      subject: 'CN=unit-client, O=connector-auth tests',
      issuer: 'CN=Unit Issuing, O=connector-auth tests',
      key: 'tls_client_certificate',
    });
    expect(loaded.privateKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
  });

  it('reads PKCS#1, encrypted PKCS#8, legacy-encrypted PKCS#1 and PKCS#12 (3DES and AES) to the same key', async () => {
    const expected = (
      await loadClientCertificate({ certificate: leaf.certificatePem, privateKey: leaf.privateKeyPem }, { now: now() })
    ).privateKeyPem;
    const inputs = [
      { certificate: leaf.certificatePem, privateKey: leaf.privateKeyPkcs1Pem },
      {
        certificate: leaf.certificatePem,
        privateKey: encryptedPkcs8(leaf, 'unit-pass'),
        privateKeyPassphrase: 'unit-pass',
      },
      {
        certificate: leaf.certificatePem,
        privateKey: encryptedPkcs1(leaf, 'unit-pass'),
        privateKeyPassphrase: 'unit-pass',
      },
      { pkcs12: pkcs12Base64(leaf, 'unit-pass', [intermediate], '3des'), pkcs12Passphrase: 'unit-pass' },
      { pkcs12: pkcs12Base64(leaf, 'unit-pass', [intermediate], 'aes256'), pkcs12Passphrase: 'unit-pass' },
    ];
    for (const input of inputs) {
      const loaded = await loadClientCertificate(input, { now: now() });
      expect(loaded.privateKeyPem).toBe(expected);
      expect(loaded.summary.subject).toContain('CN=unit-client');
    }
  });

  it('reads a PKCS#12 without a passphrase', async () => {
    const loaded = await loadClientCertificate({ pkcs12: pkcs12Base64(leaf, null) }, { now: now() });
    expect(loaded.summary.key).toBe('tls_client_pkcs12');
  });

  it('reads EC keys and OpenSSL 3 PKCS#12 bundles, modern and -legacy (made with the openssl CLI)', async () => {
    if (spawnSync('openssl', ['version']).status !== 0) throw new Error(OPENSSL_HINT);
    const dir = await mkdtemp(join(tmpdir(), 'connector-auth-ec-'));
    try {
      const run = (...args: string[]) => {
        const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
      };
      run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ec.key');
      run('req', '-x509', '-new', '-key', 'ec.key', '-subj', '/CN=ec-client', '-days', '90', '-out', 'ec.crt');
      run('pkcs8', '-topk8', '-in', 'ec.key', '-passout', 'pass:ec-pass', '-out', 'ec-encrypted.key');
      run('pkcs12', '-export', '-inkey', 'ec.key', '-in', 'ec.crt', '-passout', 'pass:ec-pass', '-out', 'modern.p12');
      run(
        'pkcs12',
        '-export',
        '-legacy',
        '-inkey',
        'ec.key',
        '-in',
        'ec.crt',
        '-passout',
        'pass:ec-pass',
        '-out',
        'legacy.p12',
      );
      const text = (name: string) => readFile(join(dir, name), 'utf8');
      const base64 = async (name: string) => (await readFile(join(dir, name))).toString('base64');
      for (const input of [
        { certificate: await text('ec.crt'), privateKey: await text('ec.key') },
        {
          certificate: await text('ec.crt'),
          privateKey: await text('ec-encrypted.key'),
          privateKeyPassphrase: 'ec-pass',
        },
        { pkcs12: await base64('modern.p12'), pkcs12Passphrase: 'ec-pass' },
        { pkcs12: await base64('legacy.p12'), pkcs12Passphrase: 'ec-pass' },
      ]) {
        const loaded = await loadClientCertificate(input, { now: now() });
        expect(loaded.summary.subject).toBe('CN=ec-client');
      }
      const wrong = await rejects(
        loadClientCertificate({ pkcs12: await base64('modern.p12'), pkcs12Passphrase: 'nope' }, { now: now() }),
      );
      expect(wrong.key).toBe('tls_client_pkcs12_passphrase');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses PEM and PKCS#12 together', async () => {
    const error = await rejects(
      loadClientCertificate(
        { certificate: leaf.certificatePem, privateKey: leaf.privateKeyPem, pkcs12: pkcs12Base64(leaf, 'x-pass') },
        { now: now() },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('tls_client_pkcs12');
  });

  it('an expired intermediate in the chain fails too, naming it', async () => {
    const oldIntermediate = createCa({
      parent: ca,
      commonName: 'Old Issuing',
      notBefore: days(-400),
      notAfter: days(-1),
    });
    const child = issueClient(oldIntermediate, { notBefore: days(-100) });
    const error = await rejects(
      loadClientCertificate(
        { certificate: child.certificatePem + oldIntermediate.certificatePem, privateKey: child.privateKeyPem },
        { now: now() },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("an intermediate certificate of its chain (subject 'CN=Old Issuing");
  });

  it('warns 30 days ahead, not 31', async () => {
    const in31 = issueClient(ca, { notAfter: days(31) });
    const in30 = issueClient(ca, { notAfter: days(30) });
    const warnings: string[] = [];
    await loadClientCertificate(
      { certificate: in31.certificatePem, privateKey: in31.privateKeyPem },
      { now: now(), warn: (m) => warnings.push(m) },
    );
    expect(warnings).toEqual([]);
    await loadClientCertificate(
      { certificate: in30.certificatePem, privateKey: in30.privateKeyPem },
      { now: now(), warn: (m) => warnings.push(m) },
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('30 days left');
  });

  it('uses the given clock: a certificate valid today is expired next year', async () => {
    const error = await rejects(
      loadClientCertificate(
        { certificate: leaf.certificatePem, privateKey: leaf.privateKeyPem },
        { now: days(400).getTime() },
      ),
    );
    expect(error.code).toBe('tls_client_certificate_expired');
  });
});

describe('readTlsSettings', () => {
  const ca = createCa();
  const client = issueClient(ca, { notAfter: days(7) });

  it('checks once per configuration: the expiry warning is said once however many parts ask', async () => {
    const raw = {
      tls_client_certificate: client.certificatePem,
      tls_client_private_key: encryptedPkcs8(client, 'settings-pass'),
      tls_client_private_key_passphrase: 'settings-pass',
    };
    const warnings: string[] = [];
    const options = { log: { warning: (m: string) => warnings.push(m) }, now, secrets: new SecretRegistry() };
    const first = await readTlsSettings(raw, options);
    const second = await readTlsSettings(raw, options);
    expect(second).toBe(first);
    expect(warnings).toHaveLength(1);
    expect(first.key).toContain('-----BEGIN PRIVATE KEY-----');
    expect(first.passphrase).toBeUndefined();
    expect(first.clientCertificate?.key).toBe('tls_client_certificate');
    // The decrypted key is a secret in its own right now.
    expect(options.secrets.contains(first.key!)).toBe(true);
  });

  it('without tls_client_* keys, node-forge is not needed and nothing is checked', async () => {
    const settings = await readTlsSettings({ tls_ca_certificate: ca.certificatePem }, { now });
    expect(settings).toEqual({ ca: ca.certificatePem.trimEnd() + '\n', verify: true });
  });

  it('an unreadable tls_ca_certificate → exit 2 naming it', async () => {
    const error = await rejects(readTlsSettings({ tls_ca_certificate: 'not a pem' }, { now }));
    expect(error.exitCode).toBe(2);
    expect(error.key).toBe('tls_ca_certificate');
  });
});

describe('certificate purpose', () => {
  it('warns when the certificate is not made for client authentication (a server certificate pasted by mistake)', async () => {
    const { issueServer } = await import('../peers/certificates.js');
    const ca = createCa();
    const server = issueServer(ca);
    const warnings: string[] = [];
    await loadClientCertificate(
      { certificate: server.certificatePem, privateKey: server.privateKeyPem },
      { now: now(), warn: (m) => warnings.push(m) },
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('lacks clientAuth');
    const client = issueClient(ca);
    const none: string[] = [];
    await loadClientCertificate(
      { certificate: client.certificatePem, privateKey: client.privateKeyPem },
      { now: now(), warn: (m) => none.push(m) },
    );
    expect(none).toEqual([]);
  });

  it('a private key pasted into tls_client_certificate is registered as a secret before the error', async () => {
    const ca = createCa();
    const client = issueClient(ca);
    const secrets = new SecretRegistry();
    const error = await rejects(
      readTlsSettings(
        { tls_client_certificate: client.privateKeyPem, tls_client_private_key: client.privateKeyPem },
        { now, secrets },
      ),
    );
    expect(error.key).toBe('tls_client_certificate');
    expect(secrets.contains(client.privateKeyPem)).toBe(true);
  });
});
