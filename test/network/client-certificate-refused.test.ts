import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { createCa, issueClient, issueServer, type Authority, type Issued } from '../peers/certificates.js';
import { startOpensslServer, type OpensslServer } from './openssl-server.js';

/**
 * Servers that refuse a client certificate inside the TLS handshake rather than with nginx's 400
 * page. With TLS 1.2 the alert reaches undici as an error; with TLS 1.3 the server judges the
 * certificate after the client considers the handshake done, undici only sees "other side closed",
 * and a look-only handshake finds the alert. Node's own https server closes without an alert;
 * that too must read as a refused certificate (exit 3), not as an unreachable source (exit 4).
 */

type Failure = Error & { exitCode: number; key?: string; code: string; hint?: string };

let ca: Authority;
let client: Issued;
let stranger: Issued;
let serverCertificate: Issued;

beforeAll(() => {
  ca = createCa({ commonName: 'Handshake Root CA' });
  client = issueClient(ca, { commonName: 'trusted-client' });
  stranger = issueClient(createCa({ commonName: 'Unknown CA' }), { commonName: 'stranger-client' });
  serverCertificate = issueServer(ca);
});

async function probe(url: string, configuration: Record<string, string>) {
  const auth = await authenticate(
    { base_url: url, tls_ca_certificate: ca.certificatePem, ...configuration },
    { registry: new SecretRegistry() },
  );
  try {
    return await auth.probe();
  } finally {
    await auth.close();
  }
}

async function failure(url: string, configuration: Record<string, string>): Promise<Failure> {
  return probe(url, configuration).then(
    () => {
      throw new Error('expected the probe to fail');
    },
    (e: unknown) => e as Failure,
  );
}

const withCertificate = (issued: Issued) => ({
  auth_method: 'mtls',
  tls_client_certificate: issued.certificatePem,
  tls_client_private_key: issued.privateKeyPem,
});

function expectNoKey(error: Failure, issued: Issued) {
  for (const line of issued.privateKeyPem.split('\n').filter((l) => l.length > 16 && !l.startsWith('-----')))
    expect(error.message + (error.hint ?? '')).not.toContain(line);
}

for (const version of ['tls1_2', 'tls1_3'] as const) {
  describe(`openssl s_server -Verify (${version}): refusal by TLS alert`, () => {
    let server: OpensslServer;
    beforeAll(async () => {
      server = await startOpensslServer({
        certificatePem: serverCertificate.certificatePem,
        keyPem: serverCertificate.privateKeyPem,
        clientCaPem: ca.certificatePem,
        version,
      });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('a trusted certificate passes', async () => {
      expect((await probe(server.url, withCertificate(client))).outcome).toBe('HTTP 200');
    });

    it('no certificate → exit 3, "requires a client certificate and none is configured"', async () => {
      const error = await failure(server.url, { auth_method: 'bearer', token: 'handshake-token-1234' });
      expect(error.exitCode).toBe(3);
      expect(error.code).toBe('tls_client_certificate_required');
      expect(error.key).toBe('tls_client_certificate');
      expect(error.message).toMatch(/ALERT_(CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE)/);
      expect(error.message).not.toContain('handshake-token-1234');
    });

    it('a certificate from an unknown CA → exit 3 naming subject, issuer and expiry', async () => {
      const error = await failure(server.url, withCertificate(stranger));
      expect(error.exitCode).toBe(3);
      expect(error.code).toBe('tls_client_certificate_refused');
      expect(error.message).toContain("subject 'CN=stranger-client, O=connector-auth tests'");
      expect(error.message).toContain("issued by 'CN=Unknown CA, O=connector-auth tests'");
      expect(error.message).toContain(`expires ${stranger.notAfter.toISOString().slice(0, 10)}`);
      expect(error.message).toContain('ALERT_UNKNOWN_CA');
      expectNoKey(error, stranger);
    });
  });
}

describe('Node https server (requestCert, rejectUnauthorized): refusal by closing the connection', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer(
      {
        cert: serverCertificate.certificatePem,
        key: serverCertificate.privateKeyPem,
        ca: ca.certificatePem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('a trusted certificate passes', async () => {
    expect((await probe(url, withCertificate(client))).outcome).toBe('HTTP 200');
  });

  it('a certificate from an unknown CA → exit 3 (closed right after the handshake), not exit 4', async () => {
    const error = await failure(url, withCertificate(stranger));
    expect(error.exitCode).toBe(3);
    expect(error.key).toBe('tls_client_certificate');
    expect(error.message).toContain("subject 'CN=stranger-client, O=connector-auth tests'");
    expect(error.message).toContain('right after the TLS handshake');
    expectNoKey(error, stranger);
  });

  it('no certificate → exit 3 (certificate_required alert found by the look-only handshake)', async () => {
    const error = await failure(url, { auth_method: 'bearer', token: 'node-token-98765' });
    expect(error.exitCode).toBe(3);
    expect(error.code).toBe('tls_client_certificate_required');
  });
});

describe('a server that closes the connection for another reason', () => {
  it('stays exit 4 (unreachable): the look-only handshake finds the certificate accepted', async () => {
    const { createServer: createTlsServer } = await import('node:tls');
    // Completes the handshake (client certificate and all), then hangs up on the first request.
    const server = createTlsServer(
      {
        cert: serverCertificate.certificatePem,
        key: serverCertificate.privateKeyPem,
        ca: ca.certificatePem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (socket) => socket.once('data', () => socket.destroy()),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const error = await failure(
        `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        withCertificate(client),
      );
      expect(error.exitCode).toBe(4);
      expect(error.key).toBe('base_url');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
