import {
  AuthenticationError,
  SourceUnreachableError,
  isConnectorAuthError,
  type ConnectorAuthError,
  systemErrorCode,
} from '../../errors/index.js';
import { describeCertificate } from '../tls/index.js';
import type { ClientCertificateSummary } from '../tls/index.js';
import { CLIENT_CERTIFICATE_ALERT } from './server-certificate.js';
import { describeUrl } from '../target.js';
import { certificateForAnotherHost, untrustedCertificate } from './tls-identity-errors.js';

/**
 * Turns whatever a failed request threw (a system or TLS error, perhaps as the cause of
 * another, an abort on timeout) into the project's error classes, so the exit code says what went
 * wrong: 4 for a source that cannot be reached, 5 for one whose identity is not trusted, 3 for a
 * server that refused our client certificate during the handshake.
 */

export interface RequestContext {
  method: string;
  url: URL;
  /** e.g. "basic auth as 'alice'" */
  credential: string;
  timeoutSeconds: number;
  /** Key naming where the URL came from (base_url, token_url, signed_url). */
  urlKey: string;
  /** The client certificate presented, if any: named when the server refuses it. */
  clientCertificate?: ClientCertificateSummary | undefined;
  /**
   * For an endpoint that exists only in one kind of place (a cloud's metadata service): the hint when
   * nothing answers or it times out, which then names `urlKey` rather than `timeout_seconds`.
   */
  unreachableHint?: string;
}

/** OpenSSL / Node codes raised when the server's certificate cannot be trusted (a wrong name is HOST_MISMATCH, which callers check first). */
export const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
]);

/** The certificate is trusted but does not name the host connected to. */
export const HOST_MISMATCH = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);

export const SYSTEM: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed (DNS, temporary)',
  ECONNRESET: 'connection reset by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed by the server',
};

export function classifyNetworkError(error: unknown, context: RequestContext): ConnectorAuthError {
  const chain = causeChain(error);
  // Classified where it happened, and perhaps wrapped since (fetch() reports a failed connect as
  // "fetch failed" with the cause inside): an SSH tunnel whose bastion refused the login, say.
  const classified = chain.find(isConnectorAuthError);
  if (classified) return classified;
  const target = `${context.credential}: ${context.method} ${describeUrl(context.url)}`;
  const codes = chain.map(errorCode);
  const names = chain.map((e) => (e as { name?: unknown }).name);

  if (names.includes('TimeoutError')) {
    return new SourceUnreachableError(`${target} timed out after ${context.timeoutSeconds}s`, {
      code: 'timeout',
      key: context.unreachableHint ? context.urlKey : 'timeout_seconds',
      hint:
        context.unreachableHint ?? `check that the source answers at '${context.urlKey}', or raise 'timeout_seconds'`,
      cause: error,
    });
  }
  const mismatch = codes.find((c) => HOST_MISMATCH.has(c));
  if (mismatch)
    return certificateForAnotherHost(target, context.url.hostname, error, { key: context.urlKey, why: mismatch });
  const untrusted = codes.find((c) => UNTRUSTED.has(c));
  if (untrusted) return untrustedCertificate(target, untrusted, error, undefined, context.urlKey);
  const alert = codes.find((c) => CLIENT_CERTIFICATE_ALERT.test(c));
  if (alert)
    return clientCertificateRefused(target, `during the TLS handshake (${alert})`, context.clientCertificate, error);
  const system = codes.find((c) => SYSTEM[c]);
  const what = system ? SYSTEM[system]! : firstMessage(chain);
  return new SourceUnreachableError(`${target} failed: ${what}`, {
    code: system ? systemErrorCode(system) : 'network_error',
    key: context.urlKey,
    hint: context.unreachableHint ?? `check '${context.urlKey}' and that the source is running and reachable`,
    cause: error,
  });
}

/**
 * The server would not take our client certificate: a TLS alert, or nginx's HTTP 400 page after a
 * handshake it completes anyway. The message names the certificate (public facts only) so a person
 * can tell an expired, a wrong or a missing certificate apart.
 */
export function clientCertificateRefused(
  target: string,
  how: string,
  certificate: ClientCertificateSummary | undefined,
  cause?: unknown,
): AuthenticationError {
  if (!certificate) {
    return new AuthenticationError(
      `${target} failed: the server requires a client certificate and none is configured (${how})`,
      {
        code: 'tls_client_certificate_required',
        key: 'tls_client_certificate',
        hint: "set 'tls_client_certificate' and 'tls_client_private_key' (or 'tls_client_pkcs12') to a certificate the server trusts",
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }
  return new AuthenticationError(
    `${target} failed: the server refused the client certificate (${describeCertificate(certificate)}) ${how}`,
    {
      code: 'tls_client_certificate_refused',
      key: certificate.key,
      hint: `check '${certificate.key}': the server must trust the CA '${certificate.issuer}' and accept this subject`,
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * An error's code. A TLS alert that arrives while Node's http client writes the request comes as
 * EPROTO with OpenSSL's words in the message: "sslv3 alert handshake failure" (OpenSSL 3.0, Node
 * 20), "ssl/tls alert handshake failure" (3.2 and later, Node 24). Read as the code Node gives the
 * same alert on a bare TLS socket (ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE).
 */
function errorCode(error: unknown): string {
  const code = String((error as { code?: unknown }).code ?? '');
  if (code !== 'EPROTO' || !(error instanceof Error)) return code;
  const alert = /\b(sslv3|tlsv1\d?|ssl\/tls) alert ([a-z ]+?)(?::|$)/i.exec(error.message);
  return alert ? `ERR_SSL_${alert[1]!.toUpperCase()}_ALERT_${alert[2]!.trim().toUpperCase().replace(/ /g, '_')}` : code;
}

/** The error and its causes, the attempts of a happy-eyeballs AggregateError included. */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e != null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  // An AggregateError (happy eyeballs tried several addresses) keeps the real causes in `errors`.
  for (const e of [...chain]) if (e instanceof AggregateError) chain.push(...e.errors);
  return chain;
}

function firstMessage(chain: unknown[]): string {
  const deepest = chain[chain.length - 1];
  return deepest instanceof Error ? deepest.message : 'request failed';
}
