import { X509Certificate, createHash, createPublicKey } from 'node:crypto';
import { ConfigurationError } from '../../errors/index.js';
import type { SigningKey } from './signing-key.js';

/**
 * The certificate of a private_key_jwt client's key, for servers that know the client by its
 * certificate rather than by a key id: Microsoft Entra ID's certificate credentials look the key up
 * by the thumbprint in the assertion's header (`x5t`, SHA-1; `x5t#S256`, SHA-256), as MSAL's
 * `WithCertificate()` and Azure Identity's ClientCertificateCredential send it.
 *
 * Taken from `client_assertion_certificate`, or from a CERTIFICATE block beside the key in
 * `client_assertion_key` (a PEM file holding both, as Azure Identity reads one). Checked before any
 * request: it must parse, be the certificate of that very key, and be valid now; each failure is
 * exit 2 naming the key. A certificate is public: nothing here is a secret.
 */

export interface AssertionCertificate {
  /** Header members naming the certificate: base64url SHA-1 and SHA-256 of its DER. */
  readonly header: { readonly x5t: string; readonly 'x5t#S256': string };
  readonly subject: string;
  readonly notAfter: Date;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const CERTIFICATE_KEY = 'client_assertion_certificate';

export function loadAssertionCertificate(
  configured: string | undefined,
  keyText: string,
  signingKey: SigningKey,
  now: () => number,
): AssertionCertificate | undefined {
  const unescape = (text: string) => (text.includes('\\n') && !text.includes('\n') ? text.replace(/\\n/g, '\n') : text);
  const pem = configured !== undefined ? unescape(configured) : CERTIFICATE_BLOCK.exec(unescape(keyText))?.[0];
  if (pem === undefined) return undefined;
  const key = configured !== undefined ? CERTIFICATE_KEY : 'client_assertion_key';
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(CERTIFICATE_BLOCK.exec(pem)?.[0] ?? pem.trim());
  } catch {
    throw new ConfigurationError(
      `invalid configuration: '${key}' does not hold a readable X.509 certificate (PEM "-----BEGIN CERTIFICATE-----")`,
      {
        code: 'assertion_certificate_unreadable',
        key,
        hint: `put the PEM of the certificate registered for the client in '${CERTIFICATE_KEY}'`,
      },
    );
  }
  const ours = createPublicKey(signingKey.key).export({ format: 'der', type: 'spki' });
  if (!certificate.publicKey.export({ format: 'der', type: 'spki' }).equals(ours))
    throw new ConfigurationError(
      `invalid configuration: the certificate '${certificate.subject.replace(/\n/g, ', ')}' in '${key}' is not the certificate of the key in 'client_assertion_key'`,
      {
        code: 'assertion_certificate_key_mismatch',
        key,
        hint: `put the certificate of 'client_assertion_key' in '${CERTIFICATE_KEY}' (the one uploaded to the app registration)`,
      },
    );
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now() < notBefore.getTime() || now() > notAfter.getTime())
    throw new ConfigurationError(
      `invalid configuration: the certificate in '${key}' is valid from ${notBefore.toISOString().slice(0, 10)} to ${notAfter.toISOString().slice(0, 10)}, not now`,
      {
        code: now() > notAfter.getTime() ? 'assertion_certificate_expired' : 'assertion_certificate_not_yet_valid',
        key,
        hint: 'upload a new certificate to the app registration and put it, with its key, in the configuration',
      },
    );
  const thumbprint = (algorithm: 'sha1' | 'sha256') =>
    createHash(algorithm).update(certificate.raw).digest('base64url');
  return {
    header: { x5t: thumbprint('sha1'), 'x5t#S256': thumbprint('sha256') },
    subject: certificate.subject.replace(/\n/g, ', '),
    notAfter,
  };
}
