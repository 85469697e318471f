import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { CertificateMaterial } from './certificate-material.js';
import { invalidTlsKey } from './invalid-tls-key.js';
import { parseCertificate, pemBlocks, unescapeNewlines } from './pem-text.js';

/**
 * The client certificate given as PEM (`tls_client_certificate`, `tls_client_private_key` and its
 * passphrase), read with Node's own crypto, which is the OpenSSL that will use the key in the
 * handshake: PKCS#1, PKCS#8, SEC1 (EC) and encrypted keys, whatever parses here also works there.
 */

export interface PemClientCertificate {
  certificate?: string | undefined;
  privateKey?: string | undefined;
  privateKeyPassphrase?: string | undefined;
}

export function readPemClientCertificate(input: PemClientCertificate): CertificateMaterial {
  if (!input.certificate)
    throw invalidTlsKey(
      'tls_client_certificate',
      "is missing while 'tls_client_private_key' is set",
      'set the PEM client certificate that belongs to the key',
    );
  if (!input.privateKey)
    throw invalidTlsKey(
      'tls_client_private_key',
      "is missing while 'tls_client_certificate' is set",
      'set the PEM private key of the client certificate',
    );
  if (/PRIVATE KEY-----/.test(input.certificate))
    throw invalidTlsKey(
      'tls_client_certificate',
      'holds a private key',
      "move the private key to 'tls_client_private_key'; this key takes the certificate only",
    );
  const blocks = pemBlocks(input.certificate, 'CERTIFICATE');
  if (blocks.length === 0)
    throw invalidTlsKey(
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

function parsePemKey(pem: string, passphrase: string | undefined): KeyObject {
  const text = unescapeNewlines(pem);
  const block = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----/.exec(text);
  if (!block)
    throw invalidTlsKey(
      'tls_client_private_key',
      'holds no PEM private key (no -----BEGIN ... PRIVATE KEY----- block)',
      'paste the key in PEM form',
    );
  const encrypted = block[1] === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,\s*ENCRYPTED/.test(text);
  if (encrypted && !passphrase)
    throw invalidTlsKey(
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
      throw invalidTlsKey(
        'tls_client_private_key_passphrase',
        'does not decrypt the private key (wrong passphrase?)',
        "check 'tls_client_private_key_passphrase'",
      );
    throw invalidTlsKey(
      'tls_client_private_key',
      'cannot be read as a PEM private key (PKCS#1, PKCS#8 or EC)',
      'paste the key exactly as issued, BEGIN and END lines included',
    );
  }
}
