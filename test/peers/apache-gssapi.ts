import { apacheHas, startApache, type ApachePeer } from './apache.js';

/**
 * A real SPNEGO acceptor: Apache (Debian's apache2-bin) with mod_auth_gssapi. Every file under it
 * asks `Negotiate` (RFC 4559) and accepts a ticket for the service keytab's principal
 * (`HTTP/127.0.0.1@realm`); the access log records the client principal of each request.
 */

export type ApacheGssapiPeer = ApachePeer;

export async function start(options: {
  /** The keytab of `HTTP/127.0.0.1@realm`. */
  keytab: Buffer;
  /** krb5.conf text for the acceptor (only its realm matters: an acceptor asks no KDC). */
  krb5Config: string;
  /** Files served, path → JSON text. */
  files: Record<string, string>;
}): Promise<ApacheGssapiPeer> {
  if (!apacheHas(['auth_gssapi']))
    throw new Error(
      'Apache with mod_auth_gssapi is missing: npm test installs apache2-bin and libapache2-mod-auth-gssapi',
    );
  return startApache({
    prefix: 'connector-auth-apache-',
    modules: ['auth_gssapi'],
    files: options.files,
    privateFiles: { 'http.keytab': options.keytab, 'krb5.conf': options.krb5Config },
    directory: (dir) => `  AuthType GSSAPI
  AuthName "connector-auth test"
  GssapiCredStore keytab:${dir}/http.keytab
  GssapiAllowedMech krb5
  GssapiBasicAuth Off`,
    env: (dir) => ({ KRB5_CONFIG: `${dir}/krb5.conf`, KRB5RCACHEDIR: dir }),
  });
}
