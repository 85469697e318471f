import type { Credential } from '../auth-method.js';

/**
 * What the `kerberos` method gives a source: a GSS-API initiator for a service principal, whose
 * tokens the source carries in its own protocol (PostgreSQL's GSSAPI messages, HTTP's `Negotiate`).
 * The ticket behind it never leaves the Kerberos library: there is no secret value to hand over.
 */

export interface GssTarget {
  /** The service part of the principal: `postgres`, `HTTP`. */
  service: string;
  host: string;
  /** The source's key that names the host, for a message when the realm has no such service. */
  hostKey: string;
  /** `krb5`: the raw Kerberos mechanism (PostgreSQL); `spnego`: negotiated, as HTTP wants it. */
  mechanism: 'krb5' | 'spnego';
}

export interface GssInitiator {
  /**
   * One step of the exchange: the acceptor's last token (base64; '' to begin) in, the next token to
   * send out (base64; '' when there is none). Failures arrive classified, naming the key to fix.
   */
  step(challenge: string): Promise<string>;
  /** True once the context is established (after the acceptor's answer, with mutual authentication). */
  readonly complete: boolean;
}

export interface KerberosCredential extends Credential {
  readonly method: 'kerberos';
  gssInitiator(target: GssTarget): Promise<GssInitiator>;
}

export function isKerberosCredential(credential: Credential): credential is KerberosCredential {
  return (
    credential.method === 'kerberos' && typeof (credential as Partial<KerberosCredential>).gssInitiator === 'function'
  );
}
