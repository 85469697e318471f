import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCa, issueServer } from '../peers/certificates.js';
import type { ClientCertificateFixture, MtlsFixture } from '../peers/oidc-provider.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { connect, expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * RFC 8705 mutual-TLS client authentication for oauth2_client_credentials, against oidc-provider's
 * mTLS feature behind an HTTPS front that asks for the client certificate
 * (test/peers/oidc-provider.ts, `mtls`): `tls_client_auth` (a CA-issued certificate with the
 * registered subject) and `self_signed_tls_client_auth` (the certificate registered in the client's
 * JWKS). The tokens are bound to the certificate (`cnf.x5t#S256`), and the protected resource
 * refuses a bound token that arrives without it: a passing probe shows the source presented the
 * same certificate as the token request.
 */

let peer: OidcPeer;
let mtls: MtlsFixture;
beforeAll(async () => {
  peer = await start({ mtls: true });
  mtls = peer.mtls!;
});
afterAll(async () => {
  await peer?.stop();
});

function configuration(
  method: 'tls_client_auth' | 'self_signed_tls_client_auth',
  certificate: ClientCertificateFixture,
  extra: Record<string, string> = {},
) {
  return {
    auth_method: 'oauth2_client_credentials',
    token_url: mtls.tokenUrl,
    client_id: method === 'tls_client_auth' ? mtls.clients.pki.id : mtls.clients.selfSigned.id,
    token_endpoint_auth: method,
    scope: 'api:read',
    tls_client_certificate: certificate.certificatePem,
    tls_client_private_key: certificate.privateKeyPem,
    tls_ca_certificate: mtls.caPem,
    base_url: mtls.apiUrl,
    probe_path: 'health',
    ...extra,
  };
}

const keysOf = (c: ClientCertificateFixture) => [
  c.privateKeyPem,
  ...c.privateKeyPem.split('\n').filter((line) => line.length > 40),
];

describe('oauth2_client_credentials with mutual-TLS client authentication (RFC 8705)', () => {
  for (const [method, certificate] of [
    ['tls_client_auth', () => mtls.clients.pki],
    ['self_signed_tls_client_auth', () => mtls.clients.selfSigned],
  ] as const) {
    it(`${method}: the certificate is the proof; the token is bound to it and the source presents the same one`, async () => {
      const h = harness();
      const before = { bound: mtls.boundTokens.length, tokens: peer.tokenRequests('client_credentials') };
      const { probe, items } = await probeWith(h, configuration(method, certificate()));
      expect(probe.outcome).toBe('HTTP 200');
      expect(items.items).toHaveLength(2);
      expect(peer.tokenRequests('client_credentials') - before.tokens).toBe(1);
      expect(mtls.boundTokens.slice(before.bound)).toEqual([mtls.thumbprint(certificate().certificatePem)]);
      expect(peer.resourceRequests.slice(-2).map((r) => r.status)).toEqual([200, 200]);
      expectNoLeak(h.lines, [...peer.seen.accessTokens, ...keysOf(certificate())]);
    });
  }

  it('a bound token is refused without its certificate: the binding is checked, so the probe above proves the same certificate went to the API', async () => {
    const h = harness();
    const auth = await connect(h, configuration('tls_client_auth', mtls.clients.pki));
    try {
      await auth.probe();
      const token = peer.seen.accessTokens.at(-1)!;
      // The same token from a client without a certificate.
      const response = await fetch(`${peer.apiUrl}/health`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
    } finally {
      await auth.close();
    }
  });

  it('a certificate the server does not accept (another CA, another subject, not the registered one): exit 3 naming tls_client_certificate', async () => {
    for (const stranger of [mtls.strangers.otherCa, mtls.strangers.otherSubject]) {
      const h = harness();
      const error = await rejection(probeWith(h, configuration('tls_client_auth', stranger)));
      expect([error.exitCode, error.key, error.code]).toEqual([3, 'tls_client_certificate', 'oauth_invalid_client']);
      // oidc-provider, like most servers, does not say which check failed.
      // The key to check is said once, by the hint; the message says what happened.
      expect(error.message).toMatch(/refused the token request: invalid_client \(client authentication failed\)$/);
      expect(error.hint).toMatch(/check 'tls_client_certificate'$/);
      expectNoLeak([error.message, String(error.hint), ...h.lines], keysOf(stranger));
    }
    const selfSigned = await rejection(
      probeWith(harness(), configuration('self_signed_tls_client_auth', mtls.strangers.otherSubject)),
    );
    expect([selfSigned.exitCode, selfSigned.key, selfSigned.code]).toEqual([
      3,
      'tls_client_certificate',
      'oauth_invalid_client',
    ]);
  });

  it('oauth2_refresh_token with tls_client_auth: the refresh grant authenticated by the certificate, the rotated token saved, the access token bound', async () => {
    const h = harness();
    const saved: [string, string][] = [];
    const before = mtls.boundTokens.length;
    const auth = await connect(
      h,
      {
        ...configuration('tls_client_auth', mtls.clients.refresh, { client_id: mtls.clients.refresh.id }),
        auth_method: 'oauth2_refresh_token',
        refresh_token: await peer.issueRefreshToken(mtls.clients.refresh.id),
      },
      { persistConfigurationValue: async (key, value) => void saved.push([key, value]) },
    );
    try {
      expect((await auth.probe()).outcome).toBe('HTTP 200');
    } finally {
      await auth.close();
    }
    expect(saved.map(([key]) => key)).toEqual(['refresh_token']);
    expect(await peer.refreshTokenActive(saved[0]![1])).toBe(true);
    expect(mtls.boundTokens.slice(before)).toEqual([mtls.thumbprint(mtls.clients.refresh.certificatePem)]);
    expectNoLeak(h.lines, [...peer.seen.accessTokens, ...peer.seen.refreshTokens, ...keysOf(mtls.clients.refresh)]);
  });

  it('a token endpoint that refuses the certificate in the handshake: exit 3 naming tls_client_certificate, the certificate described', async () => {
    // A server that verifies client certificates itself (rejectUnauthorized): one of another CA never gets past TLS.
    const ca = createCa();
    const strict: Server = createHttpsServer(
      {
        ...pemOf(issueServer(ca, { hosts: ['localhost'] })),
        ca: mtls.caPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (_req, res) => res.end(),
    );
    await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', resolve));
    try {
      const tokenUrl = `https://localhost:${(strict.address() as AddressInfo).port}/token`;
      const h = harness();
      const error = await rejection(
        probeWith(
          h,
          configuration('tls_client_auth', mtls.strangers.otherCa, {
            token_url: tokenUrl,
            tls_ca_certificate: `${mtls.caPem}\n${ca.certificatePem}`,
          }),
        ),
      );
      expect([error.exitCode, error.key, error.code]).toEqual([
        3,
        'tls_client_certificate',
        'tls_client_certificate_refused',
      ]);
      expect(error.message).toContain('refused the client certificate (');
      expectNoLeak([error.message, String(error.hint), ...h.lines], keysOf(mtls.strangers.otherCa));
    } finally {
      await new Promise((resolve) => strict.close(resolve));
    }
  });

  it('no certificate configured: exit 2 naming tls_client_certificate, before any request; no client secret needed', async () => {
    const before = peer.tokenRequests();
    const {
      tls_client_certificate: _c,
      tls_client_private_key: _k,
      ...withoutCertificate
    } = configuration('tls_client_auth', mtls.clients.pki);
    const error = await rejection(probeWith(harness(), withoutCertificate));
    expect([error.exitCode, error.key, error.code]).toEqual([2, 'tls_client_certificate', 'missing_key']);
    expect(error.message).toContain(
      "token_endpoint_auth 'tls_client_auth' proves the client with its TLS certificate, and none is configured",
    );
    expect(peer.tokenRequests()).toBe(before);
  });
});

const pemOf = (issued: { certificatePem: string; privateKeyPem: string }) => ({
  cert: issued.certificatePem,
  key: issued.privateKeyPem,
});
