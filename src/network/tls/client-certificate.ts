import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { ConfigurationError } from '../../errors/index.js';
import { secrets } from '../../secrets/index.js';
import { certificateDetails, isoDate, type CertificateDetails } from './certificate-details.js';

/**
 * Reads and checks the client certificate of mutual TLS before any connection is made: a wrong
 * passphrase, a key that belongs to another certificate or an expired certificate would otherwise
 * surface as an opaque handshake failure (or an HTTP 400 from nginx) on the far side of the network.
 *
 * PEM is read with Node's own crypto, which is the OpenSSL that will use the key in the handshake:
 * PKCS#1, PKCS#8, SEC1 (EC) and encrypted keys, whatever parses here also works there. PKCS#12 is
 * unpacked with node-forge, imported only when a bundle is configured: it also reads the legacy
 * RC2/3DES bundles that OpenSSL 3 refuses without its legacy provider, and turning the bundle into
 * PEM lets the same checks run on both forms.
 */

export interface ClientCertificateInput {
  certificate?: string | undefined;
  privateKey?: string | undefined;
  privateKeyPassphrase?: string | undefined;
  /** Base64 of a PKCS#12 (.p12 / .pfx) file. */
  pkcs12?: string | undefined;
  pkcs12Passphrase?: string | undefined;
}

/** The configuration key the certificate came from: the one to name when it is wrong or refused. */
export type ClientCertificateKey = 'tls_client_certificate' | 'tls_client_pkcs12';

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

export interface ClientCertificateChecks {
  now: number;
  /** Days before expiry from which a warning is due (default 30). */
  warnDays?: number;
  warn?: (message: string) => void;
}

export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

export async function loadClientCertificate(
  input: ClientCertificateInput,
  checks: ClientCertificateChecks,
): Promise<ClientCertificate> {
  if (input.pkcs12 && (input.certificate || input.privateKey)) {
    throw invalid(
      'tls_client_pkcs12',
      "is set together with 'tls_client_certificate'/'tls_client_private_key'; give the client certificate one way only",
      'keep either the PKCS#12 bundle or the PEM certificate and key',
    );
  }
  const { certificates, keys, origin } = input.pkcs12
    ? await unpackPkcs12(input.pkcs12, input.pkcs12Passphrase)
    : readPem(input);
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
    throw invalid(
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

/** Parses the PEM of `tls_ca_certificate`; an unreadable CA would fail every handshake as "untrusted". */
export function readCaCertificates(pem: string): string {
  const blocks = pemBlocks(pem, 'CERTIFICATE');
  if (blocks.length === 0)
    throw invalid(
      'tls_ca_certificate',
      'holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)',
      'paste the CA certificate in PEM form',
    );
  blocks.forEach((block, index) => parseCertificate(block, 'tls_ca_certificate', index, blocks.length));
  return blocks.join('\n') + '\n';
}

interface Material {
  certificates: X509Certificate[];
  keys: KeyObject[];
  origin: ClientCertificateKey;
}

function readPem(input: ClientCertificateInput): Material {
  if (!input.certificate)
    throw invalid(
      'tls_client_certificate',
      "is missing while 'tls_client_private_key' is set",
      'set the PEM client certificate that belongs to the key',
    );
  if (!input.privateKey)
    throw invalid(
      'tls_client_private_key',
      "is missing while 'tls_client_certificate' is set",
      'set the PEM private key of the client certificate',
    );
  if (/PRIVATE KEY-----/.test(input.certificate))
    throw invalid(
      'tls_client_certificate',
      'holds a private key',
      "move the private key to 'tls_client_private_key'; this key takes the certificate only",
    );
  const blocks = pemBlocks(input.certificate, 'CERTIFICATE');
  if (blocks.length === 0)
    throw invalid(
      'tls_client_certificate',
      'holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)',
      'paste the certificate in PEM form',
    );
  const certificates = blocks.map((block, index) =>
    parseCertificate(block, 'tls_client_certificate', index, blocks.length),
  );
  return {
    certificates,
    keys: [parsePemKey(input.privateKey, input.privateKeyPassphrase)],
    origin: 'tls_client_certificate',
  };
}

function parseCertificate(block: string, key: string, index: number, count: number): X509Certificate {
  try {
    return new X509Certificate(block);
  } catch {
    const which = count > 1 ? `certificate ${index + 1} of ${count}` : 'the certificate';
    throw invalid(
      key,
      `cannot be read: ${which} is not a valid X.509 PEM block`,
      'paste the certificate exactly as issued, BEGIN and END lines included',
    );
  }
}

function parsePemKey(pem: string, passphrase: string | undefined): KeyObject {
  const text = unescapeNewlines(pem);
  const block = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----/.exec(text);
  if (!block)
    throw invalid(
      'tls_client_private_key',
      'holds no PEM private key (no -----BEGIN ... PRIVATE KEY----- block)',
      'paste the key in PEM form',
    );
  const encrypted = block[1] === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,\s*ENCRYPTED/.test(text);
  if (encrypted && !passphrase)
    throw invalid(
      'tls_client_private_key_passphrase',
      'is missing: the private key is encrypted',
      "set 'tls_client_private_key_passphrase' to the key's passphrase",
    );
  try {
    return createPrivateKey({ key: text, format: 'pem', ...(encrypted ? { passphrase: passphrase! } : {}) });
  } catch {
    // OpenSSL reports a wrong passphrase in several ways ("bad decrypt", "unsupported"); on an
    // encrypted key that otherwise looks well-formed, the passphrase is the likely culprit.
    if (encrypted)
      throw invalid(
        'tls_client_private_key_passphrase',
        'does not decrypt the private key (wrong passphrase?)',
        "check 'tls_client_private_key_passphrase'",
      );
    throw invalid(
      'tls_client_private_key',
      'cannot be read as a PEM private key (PKCS#1, PKCS#8 or EC)',
      'paste the key exactly as issued, BEGIN and END lines included',
    );
  }
}

async function unpackPkcs12(base64: string, passphrase: string | undefined): Promise<Material> {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact))
    throw invalid(
      'tls_client_pkcs12',
      'is not base64',
      'set it to the base64 of the .p12/.pfx file, e.g. `base64 -w0 client.p12`',
    );
  const der = Buffer.from(compact, 'base64');
  const { default: forge } = await import('node-forge');
  let pkcs12: import('node-forge').pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
    try {
      pkcs12 = openPkcs12(forge, asn1, passphrase);
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      if (/password|MAC could not be verified|decrypt/i.test(message))
        throw invalid(
          'tls_client_pkcs12_passphrase',
          passphrase
            ? 'does not open the PKCS#12 bundle (wrong passphrase?)'
            : 'is missing: the PKCS#12 bundle needs one',
          "check 'tls_client_pkcs12_passphrase'",
        );
      throw invalid(
        'tls_client_pkcs12',
        `cannot be read as a PKCS#12 bundle (${safeReason(message)})`,
        'export the bundle again, e.g. `openssl pkcs12 -export`',
      );
    }
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw invalid(
      'tls_client_pkcs12',
      'is not a PKCS#12 bundle (the base64 does not decode to DER)',
      'set it to the base64 of the .p12/.pfx file, e.g. `base64 -w0 client.p12`',
    );
  }

  const certificates: X509Certificate[] = [];
  for (const bag of pkcs12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []) {
    // forge parses RSA certificates only; for others it keeps the ASN.1, which Node reads.
    const asn1 = bag.cert
      ? forge.pki.certificateToAsn1(bag.cert)
      : (bag as { asn1?: import('node-forge').asn1.Asn1 }).asn1;
    if (!asn1) continue;
    certificates.push(new X509Certificate(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')));
  }
  const keys: KeyObject[] = [];
  for (const type of [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!]) {
    for (const bag of pkcs12.getBags({ bagType: type })[type] ?? []) {
      const info = bag.key
        ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key))
        : (bag as { asn1?: import('node-forge').asn1.Asn1 }).asn1;
      if (!info) continue;
      keys.push(
        createPrivateKey({
          key: Buffer.from(forge.asn1.toDer(info).getBytes(), 'binary'),
          format: 'der',
          type: 'pkcs8',
        }),
      );
    }
  }
  if (certificates.length === 0)
    throw invalid('tls_client_pkcs12', 'holds no certificate', 'export the bundle with the client certificate in it');
  if (keys.length === 0)
    throw invalid(
      'tls_client_pkcs12',
      'holds no private key',
      'export the bundle with the private key (`openssl pkcs12 -export -inkey ...`)',
    );
  return { certificates, keys, origin: 'tls_client_pkcs12' };
}

/**
 * A bundle exported "without a password" is protected with either no password or the empty one,
 * depending on the tool; without a configured passphrase both are tried.
 */
function openPkcs12(
  forge: typeof import('node-forge'),
  asn1: import('node-forge').asn1.Asn1,
  passphrase: string | undefined,
) {
  if (passphrase) return forge.pkcs12.pkcs12FromAsn1(asn1, false, passphrase);
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, undefined as unknown as string);
  } catch {
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, '');
  }
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

function checkValidity(
  chain: readonly X509Certificate[],
  key: ClientCertificateKey,
  checks: ClientCertificateChecks,
): void {
  const warnDays = checks.warnDays ?? EXPIRY_WARNING_DAYS;
  chain.forEach((certificate, index) => {
    const details = certificateDetails(certificate);
    const what = index === 0 ? 'the client certificate' : 'an intermediate certificate of its chain';
    const named = `${what} (subject '${details.subject}', issued by '${details.issuer}')`;
    if (details.notAfter.getTime() <= checks.now)
      throw invalid(
        key,
        `holds ${named}, which expired on ${isoDate(details.notAfter)}`,
        `renew the certificate and set '${key}' to the new one`,
        'tls_client_certificate_expired',
      );
    if (details.notBefore.getTime() > checks.now)
      throw invalid(
        key,
        `holds ${named}, which is not valid before ${isoDate(details.notBefore)}`,
        "check the machine's clock, or wait until the certificate becomes valid",
        'tls_client_certificate_not_yet_valid',
      );
    const daysLeft = Math.ceil((details.notAfter.getTime() - checks.now) / DAY_MS);
    if (daysLeft <= warnDays)
      checks.warn?.(
        `${named} in '${key}' expires on ${isoDate(details.notAfter)}: ${daysLeft} day${daysLeft === 1 ? '' : 's'} left; renew it before then`,
      );
  });
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_PURPOSE = '2.5.29.37.0';

/**
 * A certificate whose extended key usage leaves out TLS client authentication (a server
 * certificate pasted by mistake, say) is refused by OpenSSL-based servers as "unsupported
 * certificate purpose". Said up front as a warning: some servers do not check.
 */
function checkPurpose(leaf: X509Certificate, summary: ClientCertificateSummary, checks: ClientCertificateChecks): void {
  // Node names the extended key usage list `keyUsage` (undefined when the extension is absent).
  const purposes = (leaf as X509Certificate & { keyUsage?: string[] }).keyUsage;
  if (!purposes || purposes.includes(CLIENT_AUTH) || purposes.includes(ANY_PURPOSE)) return;
  checks.warn?.(
    `the client certificate (subject '${summary.subject}') in '${summary.key}' is not made for TLS client authentication (its extended key usage lacks clientAuth): servers that check will refuse it`,
  );
}

function pemBlocks(text: string, label: string): string[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----[\\s\\S]*?-----END ${label}-----`, 'g');
  return unescapeNewlines(text).match(pattern) ?? [];
}

/**
 * PEM pasted into one JSON string line often arrives with literal "\n" (or "\r\n") sequences,
 * escaped once more than JSON needs.
 */
export function unescapeNewlines(pem: string): string {
  return pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\r\\n|\\n/g, '\n') : pem;
}

/** forge's own messages name algorithms and structures, never the bundle's bytes; keep them short. */
function safeReason(message: string): string {
  return secrets.redact(message).split('\n')[0]!.slice(0, 120) || 'unreadable';
}

function invalid(key: string, what: string, hint: string, code = 'invalid_client_certificate'): ConfigurationError {
  return new ConfigurationError(`invalid configuration for mutual TLS: key '${key}' ${what}`, { code, key, hint });
}
