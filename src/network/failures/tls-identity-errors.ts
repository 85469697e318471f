import { SourceIdentityError } from '../../errors/index.js';

/**
 * The two ways a server's TLS certificate fails a connection, said the same way by every source
 * (HTTP's classifyNetworkError, postgres, mysql, ftp): exit 5, naming the key that holds the host
 * (`host`, or a URL key such as `base_url`) when a trusted certificate names another host, and
 * `tls_ca_certificate` when the certificate's chain is not trusted. A source that knows more (the
 * names the certificate lists, the certificate the server presents) adds it.
 */

export interface HostMismatchDetail {
  /** The key that holds the host name (default `host`). */
  key?: string;
  /** Node's code for the mismatch, when the source has it (ERR_TLS_CERT_ALTNAME_INVALID). */
  why?: string;
  /** The names the certificate lists, as they should be read ("db.example.test, db"). */
  names?: string;
  /** A caveat added to the hint: what the source's own setting to skip the check would cost. */
  caveat?: string;
}

export function certificateForAnotherHost(
  target: string,
  host: string,
  cause: unknown,
  detail: HostMismatchDetail = {},
): SourceIdentityError {
  const { key = 'host' } = detail;
  const names = detail.names ? ` (it names ${detail.names})` : '';
  const why = detail.why ? ` (${detail.why})` : '';
  return new SourceIdentityError(
    `${target} failed: the server's TLS certificate is not valid for host '${host}'${names}${why}`,
    {
      code: 'tls_host_mismatch',
      // The CA is trusted; what does not match is the name the connection uses.
      key,
      hint: hostMismatchHint(key, host, detail.caveat),
      cause,
    },
  );
}

/** What to do about a certificate for another host: the key that holds the host (when known), and the host. */
export function hostMismatchHint(key: string | undefined, host: string, caveat?: string): string {
  const rename =
    key === undefined ? 'use a host name' : key === 'host' ? "set 'host' to a name" : `use in '${key}' a host name`;
  return `${rename} the certificate lists, or get a certificate that names '${host}'${caveat ? `; ${caveat}` : ''}`;
}

/** The certificate the server presented, when the source could read it. */
export interface PresentedCertificate {
  /** As describeServerCertificate (network/) says it: "a certificate with subject '…' issued by '…'". */
  description: string;
  issuer: string;
}

/**
 * `why`: Node's code or words for what it did not trust ("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed
 * certificate"); `hostKey`: the key that holds the host, to check when the server is not the one meant.
 */
export function untrustedCertificate(
  target: string,
  why: string,
  cause: unknown,
  presented?: PresentedCertificate,
  hostKey = 'host',
): SourceIdentityError {
  const presents = presented ? `; the server presents ${presented.description}` : '';
  return new SourceIdentityError(`${target} failed: the server's TLS certificate is not trusted (${why})${presents}`, {
    code: 'tls_untrusted',
    key: 'tls_ca_certificate',
    hint: untrustedHint(presented?.issuer, hostKey),
    cause,
  });
}

/**
 * What to do about a chain not trusted: trust the issuer the server presented (when it was read),
 * or check that the key holding the host (when known) is the right server.
 */
export function untrustedHint(issuer: string | undefined, hostKey?: string): string {
  const server = hostKey === undefined ? 'you reach' : `that '${hostKey}' is`;
  return issuer
    ? `if you trust '${issuer}', set 'tls_ca_certificate' to the PEM of that CA; otherwise check ${server} the right server`
    : `set 'tls_ca_certificate' to the PEM of the CA that signs the server's certificate, or check ${server} the right server`;
}
