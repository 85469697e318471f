import { X509Certificate } from 'node:crypto';
import { connect as connectTcp, isIP } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { certificateDetails, type CertificateDetails, type TlsSettings } from '../../network/index.js';

/**
 * After PostgreSQL's certificate was refused, a look-only handshake reads the certificate the server
 * presents, so the error can say who it is for and who signed it. PostgreSQL starts TLS inside its
 * own protocol: an SSLRequest message first, a one-byte 'S' answer, then the handshake. Verification
 * is off and nothing is sent over this connection; it is closed once the certificate is known.
 */
export function inspectServerCertificate(
  host: string,
  port: number,
  tls: Pick<TlsSettings, 'cert' | 'key'>,
  timeoutMs: number,
  /** An SSH tunnel's listener to connect to instead; the TLS server name stays `host`. */
  via?: { host: string; port: number },
): Promise<CertificateDetails | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const socket = connectTcp(via ?? { host, port });
    let secure: TLSSocket | undefined;
    const finish = (details: CertificateDetails | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Once TLS wraps the socket, only the TLS socket may close it: destroying the TCP socket under
      // a live TLS wrap crashes Node 20 (a segmentation fault on the next handshake).
      (secure ?? socket).destroy();
      resolve(details);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('error', () => finish(undefined));
    socket.once('connect', () => socket.write(SSL_REQUEST));
    socket.once('data', (answer: Buffer) => {
      if (answer.toString('latin1', 0, 1) !== 'S') return finish(undefined);
      secure = connectTls({
        socket,
        host,
        ...(isIP(host) ? {} : { servername: host }),
        rejectUnauthorized: false,
        // A server that aborts the handshake without a client certificate would hide its own.
        ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      });
      secure.once('error', () => finish(undefined));
      secure.once('secureConnect', () => {
        const peer = secure?.getPeerX509Certificate?.();
        finish(peer instanceof X509Certificate ? certificateDetails(peer) : undefined);
      });
    });
  });
}

/** Int32 length 8, Int32 80877103: the protocol's "may we speak TLS?" */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
