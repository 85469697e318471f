import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { secrets } from '../../secrets/index.js';
import type { CertificateMaterial } from './certificate-material.js';
import { invalidTlsKey } from './invalid-tls-key.js';

/**
 * The client certificate given as a PKCS#12 bundle (`tls_client_pkcs12`, base64), unpacked with
 * node-forge, imported only when a bundle is configured: it also reads the legacy RC2/3DES bundles
 * that OpenSSL 3 refuses without its legacy provider, and turning the bundle into certificates and
 * keys lets the PEM form's checks run on both forms.
 */
export async function unpackPkcs12(base64: string, passphrase: string | undefined): Promise<CertificateMaterial> {
  const der = decodeBase64(base64);
  const { default: forge } = await import('node-forge');
  const pkcs12 = openBundle(forge, der, passphrase);
  const certificates = certificatesOf(forge, pkcs12);
  const keys = keysOf(forge, pkcs12);
  if (certificates.length === 0)
    throw invalidTlsKey(
      'tls_client_pkcs12',
      'holds no certificate',
      'export the bundle with the client certificate in it',
    );
  if (keys.length === 0)
    throw invalidTlsKey(
      'tls_client_pkcs12',
      'holds no private key',
      'export the bundle with the private key (`openssl pkcs12 -export -inkey ...`)',
    );
  return { certificates, keys, origin: 'tls_client_pkcs12' };
}

type Forge = typeof import('node-forge');
type Pkcs12 = import('node-forge').pkcs12.Pkcs12Pfx;

function decodeBase64(base64: string): Buffer {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact))
    throw invalidTlsKey(
      'tls_client_pkcs12',
      'is not base64',
      'set it to the base64 of the .p12/.pfx file, e.g. `base64 -w0 client.p12`',
    );
  return Buffer.from(compact, 'base64');
}

/** The bundle parsed and opened: a wrong passphrase and a damaged bundle are told apart. */
function openBundle(forge: Forge, der: Buffer, passphrase: string | undefined): Pkcs12 {
  let asn1: import('node-forge').asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  } catch {
    throw invalidTlsKey(
      'tls_client_pkcs12',
      'is not a PKCS#12 bundle (the base64 does not decode to DER)',
      'set it to the base64 of the .p12/.pfx file, e.g. `base64 -w0 client.p12`',
    );
  }
  try {
    return openPkcs12(forge, asn1, passphrase);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/password|MAC could not be verified|decrypt/i.test(message))
      throw invalidTlsKey(
        'tls_client_pkcs12_passphrase',
        passphrase
          ? 'does not open the PKCS#12 bundle (wrong passphrase?)'
          : 'is missing: the PKCS#12 bundle needs one',
        "check 'tls_client_pkcs12_passphrase'",
      );
    throw invalidTlsKey(
      'tls_client_pkcs12',
      `cannot be read as a PKCS#12 bundle (${safeReason(message)})`,
      'export the bundle again, e.g. `openssl pkcs12 -export`',
    );
  }
}

function certificatesOf(forge: Forge, pkcs12: Pkcs12): X509Certificate[] {
  const certificates: X509Certificate[] = [];
  for (const bag of pkcs12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []) {
    // forge parses RSA certificates only; for others it keeps the ASN.1, which Node reads.
    const asn1 = bag.cert
      ? forge.pki.certificateToAsn1(bag.cert)
      : (bag as { asn1?: import('node-forge').asn1.Asn1 }).asn1;
    if (!asn1) continue;
    certificates.push(new X509Certificate(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')));
  }
  return certificates;
}

function keysOf(forge: Forge, pkcs12: Pkcs12): KeyObject[] {
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
  return keys;
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

/** forge's own messages name algorithms and structures, never the bundle's bytes; keep them short. */
function safeReason(message: string): string {
  return secrets.redact(message).split('\n')[0]!.slice(0, 120) || 'unreadable';
}
