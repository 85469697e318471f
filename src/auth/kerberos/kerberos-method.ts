import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { defineAuthMethod, type CredentialWith } from '../auth-method.js';
import type { GssInitiator, GssTarget, HttpRequestCapability, OutgoingRequest } from '../capabilities.js';
import { classifyGssError, type GssFailureContext } from './classify-gss-error.js';
import { readConfiguredKeytab, type Keytab } from './keytab-source.js';
import { krb5Environment, type Krb5Environment } from './krb5-environment.js';
import { loadKerberos } from './load-kerberos.js';
import { confirmServer } from './spnego-mutual-authentication.js';

/**
 * Kerberos: a ticket from a keytab (`kerberos_keytab` inline, or `kerberos_keytab_path`) or from an
 * existing credential cache, and GSS-API exchanges with services under it: PostgreSQL's GSSAPI
 * login, HTTP's SPNEGO (`Authorization: Negotiate`, RFC 4559) for the rest source. The exchange itself
 * is MIT Kerberos' (through the `kerberos` package, loaded at the first exchange, never by `validate`).
 *
 * What can be checked without the network is checked in `create`: the keytab parses, holds the
 * principal, and a KDC given by `kerberos_realm_kdc` has a realm to serve.
 */

const kerberosKeys = z.object({
  kerberos_principal: keys.optionalText(),
  kerberos_keytab: keys.optionalText(),
  kerberos_keytab_path: keys.optionalText(),
  kerberos_realm_kdc: keys.optionalText(),
  kerberos_credential_cache: keys.optionalText(),
  kerberos_skip_mutual_authentication: keys.boolean(false),
});

/** GSS_C_MUTUAL_FLAG | GSS_C_SEQUENCE_FLAG: the service proves itself too (its answer is checked). */
const GSS_FLAGS = 2 | 8;

export default defineAuthMethod({
  name: 'kerberos',
  summary: 'a Kerberos ticket from a keytab or a credential cache: GSSAPI (postgres) and SPNEGO Negotiate (rest)',
  keys: kerberosKeys,
  // A keytab is a long-lived secret like a password; a cache holds tickets that expire by themselves.
  rotationDays: (k) => (k.kerberos_keytab || k.kerberos_keytab_path ? 90 : null),
  async create(k, { secrets, log }): Promise<CredentialWith<'kerberos' | 'httpRequest'>> {
    const keytab = await readConfiguredKeytab(k, secrets);
    const ticket = kerberosTicket(k, keytab);
    const { principal } = ticket;
    const description = `kerberos as ${principal ? `'${principal}'` : "the credential cache's principal"}${keytab ? ' (keytab)' : ''}`;
    if (k.kerberos_skip_mutual_authentication)
      log.warning(
        'kerberos_skip_mutual_authentication is "true": the HTTP server\'s proof that it holds the service key is not checked, so an impostor at base_url would be believed',
      );
    const gssInitiator = (target: GssTarget) => startGssContext(ticket, target);
    return {
      method: 'kerberos',
      description,
      rejectedKey: 'kerberos_principal',
      // A Negotiate token is an authenticator another server of the same service could accept for minutes.
      sendsSecret: true,
      kerberos: { gssInitiator },
      // The probe's first step: a missing addon is said before any connection, not after the server's GSS request.
      async prepare() {
        await loadKerberos();
      },
      httpRequest: spnegoRequests(gssInitiator, !k.kerberos_skip_mutual_authentication, description),
      async close() {
        await ticket.environment.close();
      },
    };
  },
});

type KerberosKeys = z.output<typeof kerberosKeys>;

/** Where this credential's ticket comes from, and the environment MIT Kerberos reads it in. */
interface KerberosTicket {
  principal: string | undefined;
  realm: string | undefined;
  /** The key the ticket comes from: the keytab's, or `kerberos_credential_cache`. */
  ticketKey: string;
  realmKdcSet: boolean;
  environment: Krb5Environment;
}

function kerberosTicket(k: KerberosKeys, keytab: Keytab | undefined): KerberosTicket {
  if (keytab && k.kerberos_credential_cache)
    throw new ConfigurationError(`invalid configuration: ${keytab.key} and kerberos_credential_cache are both set`, {
      code: 'kerberos_ticket_twice',
      key: 'kerberos_credential_cache',
      hint: 'keep one: a keytab (a ticket fetched at each run) or an existing credential cache',
    });
  const principal = principalOf(k.kerberos_principal, keytab);
  const realm = principal?.split('@')[1];
  const realmKdc = k.kerberos_realm_kdc ? { realm: realmFor(realm), kdcs: kdcList(k.kerberos_realm_kdc) } : undefined;
  const environment = krb5Environment({
    ...(keytab ? { keytab: keytab.bytes } : {}),
    ...(realmKdc ? { realmKdc } : {}),
    ...(k.kerberos_credential_cache ? { credentialCache: k.kerberos_credential_cache } : {}),
  });
  const ticketKey = keytab?.key ?? 'kerberos_credential_cache';
  return { principal, realm, ticketKey, realmKdcSet: realmKdc !== undefined, environment };
}

/** A GSS context with a service, each of its calls run in the credential's environment. */
async function startGssContext(ticket: KerberosTicket, target: GssTarget): Promise<GssInitiator> {
  const { principal, environment } = ticket;
  const failure: GssFailureContext = {
    principal,
    ticketKey: ticket.ticketKey,
    realm: ticket.realm,
    realmKdcSet: ticket.realmKdcSet,
    service: `${target.service}/${target.host}`,
    hostKey: target.hostKey,
  };
  const kerberos = await loadKerberos();
  // Every GSS call runs with this credential's keytab, cache and krb5.conf in the environment.
  const client = await environment
    .run(() =>
      kerberos.initializeClient(`${target.service}@${target.host}`, {
        ...(principal ? { principal } : {}),
        mechOID: target.mechanism === 'spnego' ? kerberos.GSS_MECH_OID_SPNEGO : kerberos.GSS_MECH_OID_KRB5,
        gssFlag: GSS_FLAGS,
      }),
    )
    .catch((error: unknown) => Promise.reject(classifyGssError(error, failure)));
  return {
    async step(challenge) {
      try {
        return (await environment.run(() => client.step(challenge))) ?? '';
      } catch (error) {
        throw classifyGssError(error, failure);
      }
    },
    get complete() {
      return client.contextComplete;
    },
  };
}

/** SPNEGO in one round trip (RFC 4559): a fresh authenticator for each request, the server's proof checked. */
function spnegoRequests(
  gssInitiator: (target: GssTarget) => Promise<GssInitiator>,
  mutualAuthentication: boolean,
  description: string,
): HttpRequestCapability {
  /** Each request's GSS context, until its answer is checked (spnego-mutual-authentication.ts). */
  const awaitingProof = new WeakMap<OutgoingRequest, GssInitiator>();
  return {
    async authorize(request: OutgoingRequest) {
      const initiator = await gssInitiator({
        service: 'HTTP',
        host: request.url.hostname,
        hostKey: 'base_url',
        mechanism: 'spnego',
      });
      request.headers.set('authorization', `Negotiate ${await initiator.step('')}`);
      if (mutualAuthentication) awaitingProof.set(request, initiator);
    },
    async confirmAnswer(request, answer) {
      const initiator = awaitingProof.get(request);
      if (!initiator) return;
      awaitingProof.delete(request);
      await confirmServer(request, answer, initiator, description);
    },
  };
}

/** The configured principal, or the keytab's first; checked against the keytab, realm or not. */
function principalOf(configured: string | undefined, keytab: Keytab | undefined): string | undefined {
  const held = [...new Set(keytab?.entries.map((e) => e.principal) ?? [])];
  if (!configured) return held[0];
  const name = configured.trim();
  if (!keytab) return name;
  const match = held.find((p) => p === name || (!name.includes('@') && p.split('@')[0] === name));
  if (match) return match;
  throw new ConfigurationError(`invalid configuration: ${keytab.key} holds no key for kerberos_principal '${name}'`, {
    code: 'kerberos_principal_not_in_keytab',
    key: 'kerberos_principal',
    hint: `the keytab holds ${held.map((p) => `'${p}'`).join(', ')}: set kerberos_principal to one of them, or export the keytab of '${name}'`,
  });
}

function realmFor(realm: string | undefined): string {
  if (realm) return realm;
  throw new ConfigurationError('invalid configuration: kerberos_realm_kdc needs the realm it serves', {
    code: 'kerberos_realm_missing',
    key: 'kerberos_principal',
    hint: 'write kerberos_principal with its realm: alice@EXAMPLE.COM',
  });
}

/** `kdc1.example.com`, `kdc1.example.com:88, kdc2.example.com:88`, `[2001:db8::1]:88`. */
function kdcList(value: string): string[] {
  const kdcs = value.split(/[\s,]+/).filter(Boolean);
  const valid = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
  const bad = kdcs.find((kdc) => !valid.test(kdc));
  if (kdcs.length === 0 || bad !== undefined)
    throw new ConfigurationError(`invalid configuration: kerberos_realm_kdc '${bad ?? value}' is not host[:port]`, {
      code: 'kerberos_realm_kdc_invalid',
      key: 'kerberos_realm_kdc',
      hint: 'set it to the KDC as host:port (port 88 by default); several are separated by commas',
    });
  return kdcs;
}
