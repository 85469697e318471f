import { X509Certificate, createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCa, issueClient } from '../peers/certificates.js';
import { start, type OidcPeer } from '../peers/oidc-provider.js';
import { expectNoLeak, harness, probeWith, rejection } from './support.js';

/**
 * private_key_jwt with the key's certificate (`client_assertion_certificate`, or a CERTIFICATE block
 * beside the key), for servers that know a client's key by its certificate's thumbprint: Microsoft
 * Entra ID's certificate credentials. The oidc-provider peer's front checks the assertion as Entra
 * does (test/peers/entra-certificate-credential.ts: x5t#S256 or x5t, the signature with that
 * certificate's key, aud, iss, sub, time), then the real provider issues the token.
 */

let peer: OidcPeer;
beforeAll(async () => {
  peer = await start();
});
afterAll(async () => {
  await peer?.stop();
});

const configuration = (extra: Record<string, string> = {}) => ({
  auth_method: 'oauth2_client_credentials',
  token_url: peer.tokenUrl,
  client_id: peer.clients.certificate.id,
  token_endpoint_auth: 'private_key_jwt',
  client_assertion_key: peer.clients.certificate.keyPem,
  client_assertion_certificate: peer.clients.certificate.certificatePem,
  scope: 'api:read',
  base_url: peer.apiUrl,
  probe_path: 'health',
  ...extra,
});

const thumbprint = (pem: string, algorithm: 'sha1' | 'sha256') =>
  createHash(algorithm).update(new X509Certificate(pem).raw).digest('base64url');
const secrets = () => [
  peer.clients.certificate.keyPem,
  peer.clients.certificate.unregistered.keyPem,
  ...peer.seen.accessTokens,
  ...peer.seen.assertions,
];

describe('private_key_jwt with a certificate credential (Entra ID)', () => {
  it('the assertion names the certificate by thumbprint (x5t, x5t#S256) and carries nbf; the token is issued', async () => {
    const h = harness();
    const { probe } = await probeWith(h, configuration());
    expect(probe.outcome).toBe('HTTP 200');
    const { header, payload } = peer.assertions.at(-1)!;
    const pem = peer.clients.certificate.certificatePem;
    expect(header).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
      x5t: thumbprint(pem, 'sha1'),
      'x5t#S256': thumbprint(pem, 'sha256'),
    });
    expect(payload).toMatchObject({
      iss: peer.clients.certificate.id,
      sub: peer.clients.certificate.id,
      aud: peer.tokenUrl,
    });
    expect(payload.nbf).toBe(payload.iat);
    expectNoLeak(h.lines, secrets());
  });

  it('one PEM holding the certificate and the key, as Azure Identity reads a certificate file', async () => {
    const { client_assertion_certificate: _c, ...rest } = configuration();
    const { probe } = await probeWith(harness(), {
      ...rest,
      client_assertion_key: `${peer.clients.certificate.certificatePem}\n${peer.clients.certificate.keyPem}`,
    });
    expect(probe.outcome).toBe('HTTP 200');
  });

  it('without the certificate Entra finds no key: exit 3 naming client_assertion_key, quoting AADSTS700027', async () => {
    const { client_assertion_certificate: _c, ...withoutCertificate } = configuration();
    const error = await rejection(probeWith(harness(), withoutCertificate));
    expect([error.exitCode, error.key, error.code]).toEqual([3, 'client_assertion_key', 'oauth_invalid_client']);
    expect(error.message).toContain(
      "AADSTS700027: Client assertion contains an invalid signature. [Reason - The key was not found., Thumbprint of key used by client: 'Not available'",
    );
  });

  it('a certificate the app registration does not hold: exit 3, the thumbprint quoted', async () => {
    const { unregistered } = peer.clients.certificate;
    const h = harness();
    const error = await rejection(
      probeWith(
        h,
        configuration({
          client_assertion_key: unregistered.keyPem,
          client_assertion_certificate: unregistered.certificatePem,
        }),
      ),
    );
    expect([error.exitCode, error.key]).toEqual([3, 'client_assertion_key']);
    const hex = createHash('sha256')
      .update(new X509Certificate(unregistered.certificatePem).raw)
      .digest('hex')
      .toUpperCase();
    expect(error.message).toContain(`Thumbprint of key used by client: '${hex}'`);
    expectNoLeak([error.message, String(error.hint), ...h.lines], secrets());
  });

  it('a certificate that is not the key’s, or that has expired: exit 2 naming it, before any request', async () => {
    const before = peer.tokenRequests();
    const other = issueClient(createCa(), { commonName: 'another key' });
    const expired = issueClient(createCa(), {
      commonName: 'expired',
      notBefore: new Date(Date.now() - 400 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    for (const [extra, code] of [
      [{ client_assertion_certificate: other.certificatePem }, 'assertion_certificate_key_mismatch'],
      [
        { client_assertion_key: expired.privateKeyPem, client_assertion_certificate: expired.certificatePem },
        'assertion_certificate_expired',
      ],
      [{ client_assertion_certificate: 'not a certificate' }, 'assertion_certificate_unreadable'],
    ] as const) {
      const error = await rejection(probeWith(harness(), configuration(extra)));
      expect([error.exitCode, error.key, error.code]).toEqual([2, 'client_assertion_certificate', code]);
    }
    expect(peer.tokenRequests()).toBe(before);
  });
});
