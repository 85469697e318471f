import type { AuthContext, ConfiguredTls } from '../auth-method.js';
import { ConfigurationError } from '../../errors/index.js';
import { HttpClient, describeUrl, encryptedOrLoopback, type TlsSettings } from '../../network/index.js';

/**
 * How the connector talks to an identity service (an OAuth token endpoint, a cloud's STS): where it
 * may be (https://, or http:// on loopback) and which certificates it must present (verified always;
 * the system roots plus `tls_ca_certificate`). A token endpoint receives the secrets that mint
 * tokens, so none of the source's relaxations apply.
 */

/**
 * A token endpoint receives the client secret (STS answers with a role's secret key): https:// only,
 * except on a loopback host where nothing crosses a network. `allow_plain_http` does not loosen this
 * (it covers short-lived tokens sent to a source, not the secrets that mint them). `exposed` says
 * what would cross in clear, `endpoint` what the URL is, for the message.
 */
export function checkTokenEndpointUrl(
  url: URL,
  key: string,
  scope: string,
  exposed = 'send the client credentials',
  endpoint = 'the token endpoint',
): void {
  if (encryptedOrLoopback(url)) return;
  throw new ConfigurationError(
    `invalid configuration for ${scope}: key '${key}' must use https:// (${describeUrl(url)} would ${exposed} in clear; http:// is accepted only on a loopback host)`,
    { code: 'token_url_not_https', key, hint: `use the https:// address of ${endpoint} in '${key}'` },
  );
}

/**
 * The token endpoint's HTTP client. It verifies the server whatever `tls_skip_verify` says (that key
 * is about the source; a token endpoint receives the long-lived secret), and trusts the system roots
 * plus `tls_ca_certificate` when given (an in-house CA often signs both the API and its identity
 * server, while a hosted one is signed by a public CA: adding covers both cases, replacing would not).
 */
export async function createTokenHttpClient(tls: ConfiguredTls, timeoutSeconds: number): Promise<HttpClient> {
  return new HttpClient({ tls: await tokenEndpointTls(tls), timeoutSeconds });
}

/**
 * The same client from a method's context: what a connector's own method uses for its login or token
 * request (timeout_seconds, TLS verified, redirects not followed: a 3xx is the answer).
 */
export function identityServiceClient(context: Pick<AuthContext, 'tls' | 'common'>): Promise<HttpClient> {
  return createTokenHttpClient(context.tls, context.common.timeout_seconds);
}

/**
 * The TLS settings of any identity service (a token endpoint, AWS STS): verified, system roots plus
 * `tls_ca_certificate`. The `tls_client_*` certificate is presented only when asked
 * (`clientCertificate`: RFC 8705 client authentication, where it is the client's proof); otherwise it
 * belongs to the source's connections alone.
 */
export async function tokenEndpointTls(
  tls: ConfiguredTls,
  options: { clientCertificate?: boolean } = {},
): Promise<TlsSettings> {
  // The settings the source reads too (one read, one expiry warning); only their CA, and the
  // certificate when asked, apply here.
  const settings = await tls.read();
  const ca = settings.ca;
  return {
    verify: true,
    // node:tls by name here: a run whose token endpoint is never asked does not load it.
    ...(ca ? { ca: `${process.getBuiltinModule('node:tls').rootCertificates.join('\n')}\n${ca}` } : {}),
    ...(options.clientCertificate
      ? { cert: settings.cert, key: settings.key, clientCertificate: settings.clientCertificate }
      : {}),
  };
}

/** RFC 8705 client authentication has no proof but the certificate: exit 2 naming its key when none is configured. */
export function requireClientCertificate(tls: ConfiguredTls, what: string): void {
  if (tls.hasClientCertificate) return;
  throw new ConfigurationError(
    `invalid configuration: ${what} proves the client with its TLS certificate, and none is configured`,
    {
      code: 'missing_key',
      key: 'tls_client_certificate',
      hint: "set 'tls_client_certificate' and 'tls_client_private_key' (or 'tls_client_pkcs12') to the certificate registered for the client",
    },
  );
}
