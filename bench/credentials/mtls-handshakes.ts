import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { authenticate } from '../../src/connector/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { createCa, issueClient, issueServer } from '../../test/peers/certificates.js';

/**
 * TLS handshakes per 1,000 sequential mTLS requests: the REST source's client (one undici Agent
 * with keep-alive, as update() uses it) against a new connection per request (a fresh Agent each
 * time, what a connector that builds its client inside a loop does). Handshakes are counted on the
 * server: a Node https server with `requestCert` that verifies every client certificate and counts
 * 'secureConnection' events (and, of those, resumed sessions).
 *
 * Expect 1 handshake for the probe and 1 in the loop: undici may hand the first request after the
 * probe to a second connection (the probe's is marked idle a tick after its body ends); from then
 * on both are reused. The second handshake resumes the first one's TLS session.
 *
 *   npx tsx bench/credentials/mtls-handshakes.ts
 */

export async function run(options: { requests?: number } = {}): Promise<Record<string, number>> {
  const requests = options.requests ?? 1000;
  const ca = createCa({ commonName: 'bench CA' });
  const serverCertificate = issueServer(ca);
  const client = issueClient(ca, { commonName: 'bench-client' });

  let handshakes = 0;
  let resumed = 0;
  const server = createServer(
    {
      cert: serverCertificate.certificatePem,
      key: serverCertificate.privateKeyPem,
      ca: ca.certificatePem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    },
  );
  server.on('secureConnection', (socket: TLSSocket) => {
    handshakes++;
    if (socket.isSessionReused()) resumed++;
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  try {
    // 1. The connector's own client: authenticate once, then `requests` calls through source.fetch.
    const auth = await authenticate(
      {
        auth_method: 'mtls',
        base_url: baseUrl,
        probe_path: 'ping',
        tls_ca_certificate: ca.certificatePem,
        tls_client_certificate: client.certificatePem,
        tls_client_private_key: client.privateKeyPem,
      },
      { registry: new SecretRegistry() },
    );
    handshakes = 0;
    await auth.probe();
    const probeHandshakes = handshakes;
    handshakes = 0;
    resumed = 0;
    let started = performance.now();
    for (let i = 0; i < requests; i++) {
      const response = await auth.source.fetch('ping');
      if (response.status !== 200) throw new Error(`unexpected HTTP ${response.status}`);
      await response.arrayBuffer();
    }
    const reuseMs = performance.now() - started;
    const reuseHandshakes = handshakes;
    const reuseResumed = resumed;
    await auth.close();

    // 2. Baseline: a new Agent (so a new connection and a full handshake) per request.
    const { Agent, fetch } = await import('undici');
    const connect = { ca: ca.certificatePem, cert: client.certificatePem, key: client.privateKeyPem };
    handshakes = 0;
    resumed = 0;
    started = performance.now();
    for (let i = 0; i < requests; i++) {
      const dispatcher = new Agent({ connect });
      const response = await fetch(`${baseUrl}/ping`, { dispatcher });
      if (response.status !== 200) throw new Error(`unexpected HTTP ${response.status}`);
      await response.arrayBuffer();
      await dispatcher.close();
    }
    const freshMs = performance.now() - started;
    const freshHandshakes = handshakes;
    const freshResumed = resumed;

    const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
    return {
      mtls_requests: requests,
      mtls_probe_handshakes: probeHandshakes,
      mtls_reuse_handshakes: reuseHandshakes,
      mtls_reuse_resumed_sessions: reuseResumed,
      mtls_reuse_requests_per_s: round((requests / reuseMs) * 1000),
      mtls_reuse_total_ms: round(reuseMs),
      mtls_new_connection_handshakes: freshHandshakes,
      mtls_new_connection_resumed_sessions: freshResumed,
      mtls_new_connection_requests_per_s: round((requests / freshMs) * 1000),
      mtls_new_connection_total_ms: round(freshMs),
      mtls_handshakes_saved_ratio: round(freshHandshakes / Math.max(reuseHandshakes, 1)),
      mtls_speedup_ratio: round(freshMs / reuseMs, 2),
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
