import {
  AuthenticationError,
  ConfigurationError,
  SourceUnreachableError,
  type ConnectorAuthError,
} from '../../errors/index.js';

/**
 * A failed GSS-API step as one of the project's errors, naming the key to fix. MIT Kerberos puts the
 * reason in the minor status ("Client 'x@R' not found in Kerberos database", "Preauthentication
 * failed"…), which the `kerberos` package appends to its message; these texts name principals and
 * realms, never key material. The patterns are MIT's error table (krb5_err.et, k5e1_err.et) as
 * Debian's libkrb5 words them.
 */

export interface GssFailureContext {
  /** The client principal as configured, or as the keytab or cache holds it; absent: the cache's default. */
  principal: string | undefined;
  /** Where the ticket comes from: `kerberos_keytab`, `kerberos_keytab_path` or `kerberos_credential_cache`. */
  ticketKey: string;
  realm: string | undefined;
  /** True when `kerberos_realm_kdc` named the KDC. */
  realmKdcSet: boolean;
  /** The service principal asked for, `postgres/db.example.com`. */
  service: string;
  /** The source's key that names the service's host (`host`, `base_url`). */
  hostKey: string;
}

type Rule = [RegExp, (m: RegExpMatchArray, c: GssFailureContext) => ConnectorAuthError];

const who = (c: GssFailureContext) => (c.principal ? `'${c.principal}'` : "the credential cache's principal");

const RULES: Rule[] = [
  [
    /Client '?([^' ]+)'? not found in Kerberos database/,
    (m, c) =>
      new AuthenticationError(`kerberos: the KDC does not know the principal '${m[1]}'`, {
        code: 'kerberos_unknown_principal',
        key: 'kerberos_principal',
        hint: `check kerberos_principal (and its realm); the keytab in ${c.ticketKey} must be for that principal`,
      }),
  ],
  [
    /Preauthentication failed|Password incorrect|Decrypt integrity check failed|Key version number for principal in key table is incorrect|No key table entry found/,
    (_m, c) =>
      new AuthenticationError(`kerberos: the KDC refused the key of ${who(c)} (the keytab is not current)`, {
        code: 'kerberos_keytab_rejected',
        key: c.ticketKey,
        hint: `export the principal's current keys again (kadmin ktadd -norandkey, or ktpass) and set ${c.ticketKey} to the new keytab`,
      }),
  ],
  [
    /Clock skew too great/,
    () =>
      new AuthenticationError(
        "kerberos: this machine's clock and the KDC's differ by more than the realm allows (clock skew)",
        {
          code: 'kerberos_clock_skew',
          hint: "no key is wrong: set this machine's clock right (NTP), or ask the realm's administrator about the KDC's",
        },
      ),
  ],
  [
    /Ticket expired|Ticket not yet valid/,
    (_m, c) =>
      new AuthenticationError(`kerberos: the ticket of ${who(c)} in the credential cache has expired`, {
        code: 'kerberos_ticket_expired',
        key: c.ticketKey,
        hint:
          c.ticketKey === 'kerberos_credential_cache'
            ? 'renew it (kinit), or set kerberos_keytab so each run fetches its own ticket'
            : 'the ticket fetched from the keytab has expired: run again',
      }),
  ],
  [
    /Cannot contact any KDC for realm|Cannot resolve network address for KDC/,
    (_m, c) =>
      new SourceUnreachableError(`kerberos: no KDC of realm ${c.realm ?? '(default)'} answered`, {
        code: 'kerberos_kdc_unreachable',
        key: 'kerberos_realm_kdc',
        hint: c.realmKdcSet
          ? 'check kerberos_realm_kdc (host:port of a KDC, usually port 88) and that this machine can reach it'
          : "set kerberos_realm_kdc to the KDC's host:port, or fix the realm's kdc in krb5.conf",
      }),
  ],
  [
    /Cannot find KDC for realm|Configuration file does not specify default realm/,
    (_m, c) =>
      new ConfigurationError(`kerberos: no krb5.conf names a KDC for realm ${c.realm ?? '(default)'}`, {
        code: 'kerberos_kdc_unknown',
        key: 'kerberos_realm_kdc',
        hint: "set kerberos_realm_kdc to the KDC's host:port (and kerberos_principal with its @REALM)",
      }),
  ],
  [
    /Server '?([^' ]+)'? not found in Kerberos database/,
    (m, c) =>
      new AuthenticationError(`kerberos: the realm has no service principal '${m[1]}'`, {
        code: 'kerberos_unknown_service',
        key: c.hostKey,
        hint: `${c.hostKey} must be the host name the service's principal (${c.service}) is registered under, not an alias or an address`,
      }),
  ],
  [
    /Can't find client principal (\S+) in cache collection|Matching credential not found|No credentials cache found|No Kerberos credentials available|cannot find mechanisms to negotiate/,
    (m, c) =>
      new ConfigurationError(
        `kerberos: no ticket for ${m[1] ? `'${m[1]}'` : who(c)} in ${c.ticketKey === 'kerberos_credential_cache' ? 'the credential cache' : c.ticketKey}`,
        {
          code: 'kerberos_no_ticket',
          key: c.ticketKey === 'kerberos_credential_cache' ? 'kerberos_keytab' : 'kerberos_principal',
          hint:
            c.ticketKey === 'kerberos_credential_cache'
              ? 'set kerberos_keytab (or kerberos_keytab_path), or get a ticket with kinit into the cache kerberos_credential_cache names'
              : `kerberos_principal must be a principal whose key ${c.ticketKey} holds`,
        },
      ),
  ],
];

export function classifyGssError(error: unknown, context: GssFailureContext): ConnectorAuthError {
  const text = error instanceof Error ? error.message : String(error);
  for (const [pattern, make] of RULES) {
    const match = text.match(pattern);
    if (match) return withCause(make(match, context), error);
  }
  // The library's own words: principals and realms, no key material.
  return new AuthenticationError(
    `kerberos: the GSS-API exchange for ${context.service} failed: ${text.split('\n')[0]}`,
    {
      code: 'kerberos_failed',
      key: 'kerberos_principal',
      hint: 'check kerberos_principal, the keytab and the realm; KRB5_TRACE=/dev/stderr shows what MIT Kerberos did',
      cause: error,
    },
  );
}

function withCause(classified: ConnectorAuthError, cause: unknown): ConnectorAuthError {
  Object.defineProperty(classified, 'cause', { value: cause, enumerable: false, configurable: true });
  return classified;
}
