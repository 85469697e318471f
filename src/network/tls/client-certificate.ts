import type { KeyObject, X509Certificate } from 'node:crypto';
import { certificateDetails, type CertificateDetails } from './certificate-details.js';
import type { ClientCertificateKey } from './certificate-material.js';
import { checkPurpose, checkValidity, type ClientCertificateChecks } from './certificate-validity.js';
import { invalidTlsKey } from './invalid-tls-key.js';
import { readPemClientCertificate } from './pem-client-certificate.js';
import { unpackPkcs12 } from './pkcs12-bundle.js';

/**
 * Reads and checks the client certificate of mutual TLS before any connection is made: a wrong
 * passphrase, a key that belongs to another certificate or an expired certificate would otherwise
 * surface as an opaque handshake failure (or an HTTP 400 from nginx) on the far side of the network.
 * Either form (PEM, pem-client-certificate.ts; PKCS#12, pkcs12-bundle.ts) becomes certificates and
 * keys, which are paired and checked here the same way (certificate-validity.ts).
 */

export interface ClientCertificateInput {
  certificate?: string | undefined;
  privateKey?: string | undefined;
  privateKeyPassphrase?: string | undefined;
  /** Base64 of a PKCS#12 (.p12 / .pfx) file. */
  pkcs12?: string | undefined;
  pkcs12Passphrase?: string | undefined;
}

export interface ClientCertificateSummary extends CertificateDetails {
  key: ClientCertificateKey;
}

export interface ClientCertificate {
  /** PEM chain, leaf first, as the handshake sends it. */
  certificateChainPem: string;
  /** Unencrypted PKCS#8 PEM: decrypted once here, so the handshake needs no passphrase. A secret. */
  privateKeyPem: string;
  summary: ClientCertificateSummary;
}

export async function loadClientCertificate(
  input: ClientCertificateInput,
  checks: ClientCertificateChecks,
): Promise<ClientCertificate> {
  if (input.pkcs12 && (input.certificate || input.privateKey)) {
    throw invalidTlsKey(
      'tls_client_pkcs12',
      "is set together with 'tls_client_certificate'/'tls_client_private_key'; give the client certificate one way only",
      'keep either the PKCS#12 bundle or the PEM certificate and key',
    );
  }
  const { certificates, keys, origin } = input.pkcs12
    ? await unpackPkcs12(input.pkcs12, input.pkcs12Passphrase)
    : readPemClientCertificate(input);
  const keyName = origin === 'tls_client_pkcs12' ? 'tls_client_pkcs12' : 'tls_client_private_key';

  // The leaf is the certificate the private key belongs to; the rest is its chain.
  let leaf: X509Certificate | undefined;
  let privateKey: KeyObject | undefined;
  for (const key of keys) {
    leaf = certificates.find((certificate) => matches(certificate, key));
    if (leaf) {
      privateKey = key;
      break;
    }
  }
  if (!leaf || !privateKey) {
    const first = certificates[0]!;
    throw invalidTlsKey(
      keyName,
      `does not belong to the client certificate (subject '${certificateDetails(first).subject}'): the key does not match its public key`,
      origin === 'tls_client_pkcs12'
        ? 'export the bundle again with the certificate and its own private key'
        : "set 'tls_client_private_key' to the key the certificate was issued for",
    );
  }
  const chain = orderChain(leaf, certificates);
  const summary: ClientCertificateSummary = { ...certificateDetails(leaf), key: origin };
  checkValidity(chain, origin, checks);
  checkPurpose(leaf, summary, checks);

  return {
    certificateChainPem: chain.map((certificate) => certificate.toString().trim()).join('\n') + '\n',
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    summary,
  };
}

function matches(certificate: X509Certificate, key: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(key);
  } catch {
    return false;
  }
}

/**
 * Leaf first, then each issuer in turn, as TLS requires. A bundle pasted in another order, or
 * holding the root too, still yields the right chain; certificates that sign nothing in it are left
 * out rather than confusing the server.
 */
export function orderChain(leaf: X509Certificate, certificates: readonly X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  const rest = certificates.filter((certificate) => certificate !== leaf);
  for (let current = leaf; ;) {
    if (current.checkIssued(current)) break; // self-signed: the top
    const index = rest.findIndex((candidate) => current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (index < 0) break;
    current = rest.splice(index, 1)[0]!;
    chain.push(current);
  }
  return chain;
}
