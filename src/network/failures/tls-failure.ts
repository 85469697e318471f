import { SourceIdentityError, isConnectorAuthError, type ConnectorAuthError } from '../../errors/index.js';
import { isoDate, type CertificateDetails } from '../tls/index.js';
import { clientCertificateRefused } from './classify-network-error.js';
import type { HttpRoute } from '../http-route.js';
import { diagnoseClosedConnection, inspectServerCertificate } from './server-certificate.js';
import { hostMismatchHint, untrustedHint } from './tls-identity-errors.js';
import type { TlsSettings } from '../tls/index.js';

/**
 * Failures of TLS that need more than the error object to explain: nginx's HTTP 400 pages for a
 * client certificate it did not get or did not accept, and the certificate of a server we do not
 * trust (read with a look-only handshake, since a failed handshake keeps it to itself).
 */

/**
 * nginx with `ssl_verify_client on` completes the handshake whatever the client sends and answers
 * 400 with one of these titles (internally 496 and 495). Other servers abort the handshake with a
 * TLS alert instead, which classifyNetworkError recognises.
 */
const NGINX_NO_CERTIFICATE = /No required SSL certificate was sent/i;
const NGINX_CERTIFICATE_ERROR = /The SSL certificate error/i;

/** How much of a 400 body is read to recognise nginx's page; its pages are a few hundred bytes. */
export const REFUSAL_BODY_LIMIT = 4096;

export type ClientCertificateRefusal = 'not_sent' | 'not_accepted';

export function recognizeClientCertificateRefusal(status: number, body: string): ClientCertificateRefusal | undefined {
  if (status !== 400) return undefined;
  if (NGINX_NO_CERTIFICATE.test(body)) return 'not_sent';
  if (NGINX_CERTIFICATE_ERROR.test(body)) return 'not_accepted';
  return undefined;
}

/**
 * Reads at most `limit` characters of a body and cancels the rest: a probe must not download a
 * large error page, and the text is only matched, never shown. A body shorter than the limit is
 * read to its end, which keeps the connection open for the next request.
 */
export async function readBodyStart(response: Response, limit = REFUSAL_BODY_LIMIT): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let complete = false;
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body cut short still tells what it has.
  } finally {
    // Cancelling drops the connection: only a body not read to its end is cancelled.
    if (complete) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, limit);
}

/** The AuthenticationError (exit 3) for nginx's 400 answer about the client certificate. */
export function clientCertificateRefusedByStatus(
  refusal: ClientCertificateRefusal,
  target: string,
  tls: Pick<TlsSettings, 'clientCertificate'> | undefined,
) {
  const how =
    refusal === 'not_sent'
      ? 'with HTTP 400 "No required SSL certificate was sent"'
      : 'with HTTP 400 "The SSL certificate error" (it does not trust the certificate, or it has expired or been revoked)';
  return clientCertificateRefused(target, how, tls?.clientCertificate);
}

export interface TlsFailureContext {
  url: URL;
  tls: Pick<TlsSettings, 'ca' | 'cert' | 'key' | 'verify' | 'clientCertificate'>;
  /** "<credential>: GET <url>", the start of the message. */
  target: string;
  timeoutMs?: number;
  /** The route the request took (an SSH tunnel): the look-only handshakes take it too. */
  route?: HttpRoute;
}

/**
 * Explains what a failed request's error alone cannot:
 * - an untrusted server certificate (exit 5) gets the certificate's subject, issuer and validity;
 * - a connection the server closed gets a look-only handshake that tells whether the server refused
 *   our client certificate (or the lack of one). With TLS 1.3 the server judges the certificate
 *   after the client considers the handshake done, so its alert reaches the client as a plain "other
 *   side closed"; read on a socket of our own, it shows (exit 3).
 * Any other error is returned as it was.
 */
export async function explainTlsFailure(error: unknown, context: TlsFailureContext): Promise<unknown> {
  if (!isConnectorAuthError(error) || context.url.protocol !== 'https:') return error;
  if (error.code === 'tls_untrusted' || error.code === 'tls_host_mismatch')
    return explainUntrustedServer(error, error.code, context);
  if (CLOSED_CODES.has(error.code)) {
    const refusal = await diagnoseClosedConnection(context.url, context.tls, context).catch(() => undefined);
    if (refusal?.kind === 'alert')
      return clientCertificateRefused(
        context.target,
        `during the TLS handshake (${refusal.code})`,
        context.tls.clientCertificate,
        error,
      );
    // A silent close says little when no certificate was offered; with one, it is the usual refusal.
    if (refusal?.kind === 'closed_after_handshake' && context.tls.clientCertificate)
      return clientCertificateRefused(
        context.target,
        'by closing the connection right after the TLS handshake, before any request (what servers that refuse a client certificate without a TLS alert do)',
        context.tls.clientCertificate,
        error,
      );
  }
  return error;
}

const CLOSED_CODES = new Set(['econnreset', 'epipe']);

async function explainUntrustedServer(
  error: ConnectorAuthError,
  code: 'tls_untrusted' | 'tls_host_mismatch',
  context: TlsFailureContext,
): Promise<unknown> {
  const server = await inspectServerCertificate(context.url, context.tls, context).catch(() => undefined);
  if (!server) return error;
  return new SourceIdentityError(`${error.message}; the server presents ${describeServerCertificate(server)}`, {
    code,
    key: error.key ?? 'tls_ca_certificate',
    hint:
      code === 'tls_host_mismatch' ? hostMismatchHint(error.key, context.url.hostname) : untrustedHint(server.issuer),
    cause: error,
  });
}

export function describeServerCertificate(server: CertificateDetails): string {
  const names =
    server.altNames.length > 0
      ? `, names ${server.altNames.slice(0, 5).join(', ')}${server.altNames.length > 5 ? ', …' : ''}`
      : '';
  const selfSigned = server.subject === server.issuer ? ' (self-signed)' : '';
  return `a certificate with subject '${server.subject}', issued by '${server.issuer}'${selfSigned}${names}, valid ${isoDate(server.notBefore)} to ${isoDate(server.notAfter)}`;
}
