import { X509Certificate } from 'node:crypto';
import { certificateDetails, type CertificateDetails } from '../tls/index.js';
import { tlsDialOptions, type HttpRoute } from '../http-route.js';
import type { TlsSettings } from '../tls/index.js';

/** How long a look-only handshake may take, and the route that reaches the server (http-route.ts). */
export interface HandshakeOptions {
  timeoutMs?: number;
  route?: HttpRoute;
}

/** TLS alerts by which a server refuses the client certificate, or its absence. */
export const CLIENT_CERTIFICATE_ALERT =
  /ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|ACCESS_DENIED|HANDSHAKE_FAILURE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|UNSUPPORTED_CERTIFICATE)/;

/**
 * After a handshake failed because the server's certificate is not trusted, a second, look-only
 * handshake (verification off, nothing sent over it) reads the certificate the server presents,
 * so the error can say whose certificate it was and who signed it. Nothing of this connection is
 * trusted or used; it is closed as soon as the certificate is known.
 */
export async function inspectServerCertificate(
  url: URL,
  tls: Pick<TlsSettings, 'cert' | 'key'>,
  { timeoutMs = 5_000, route }: HandshakeOptions = {},
): Promise<CertificateDetails | undefined> {
  if (url.protocol !== 'https:') return undefined;
  const { connect } = await import('node:tls');
  const dial = await tlsDialOptions(url, route);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (details: CertificateDetails | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(details);
    };
    const socket = connect({
      ...dial,
      rejectUnauthorized: false,
      // Servers that abort the handshake without a client certificate would hide theirs.
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    });
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      const peer = socket.getPeerX509Certificate?.();
      finish(peer instanceof X509Certificate ? certificateDetails(peer) : undefined);
    });
    socket.once('error', () => finish(undefined));
    socket.once('close', () => finish(undefined));
  });
}

export type ClosedConnectionDiagnosis = { kind: 'alert'; code: string } | { kind: 'closed_after_handshake' };

/**
 * A handshake of our own with the same TLS material, sending nothing: a server that refuses the
 * client certificate answers with an alert, or closes at once; an HTTP server that accepted it
 * waits for a request, and after `quietMs` of that the certificate was not the problem.
 */
export async function diagnoseClosedConnection(
  url: URL,
  tls: Pick<TlsSettings, 'ca' | 'cert' | 'key' | 'verify'>,
  { timeoutMs = 5_000, quietMs = 1_000, route }: HandshakeOptions & { quietMs?: number } = {},
): Promise<ClosedConnectionDiagnosis | undefined> {
  const { connect } = await import('node:tls');
  const dial = await tlsDialOptions(url, route);
  return new Promise((resolve) => {
    let settled = false;
    let handshakeDone = false;
    const finish = (result: ClosedConnectionDiagnosis | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = connect({
      ...dial,
      rejectUnauthorized: tls.verify,
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    });
    let timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      handshakeDone = true;
      clearTimeout(timer);
      timer = setTimeout(() => finish(undefined), quietMs);
    });
    socket.on('error', (error: Error & { code?: string }) => {
      const code = String(error.code ?? '');
      finish(CLIENT_CERTIFICATE_ALERT.test(code) ? { kind: 'alert', code } : undefined);
    });
    socket.once('end', () => finish(handshakeDone ? { kind: 'closed_after_handshake' } : undefined));
    socket.once('close', () => finish(undefined));
  });
}
