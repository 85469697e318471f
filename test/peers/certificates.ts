import forge from 'node-forge';

/**
 * A throw-away PKI for tests, made at test time with node-forge (nothing is committed): a root CA,
 * optional intermediates, server certificates for 127.0.0.1/localhost and client certificates with
 * any validity window, plus the encodings users paste into configuration.json (encrypted PEM,
 * PKCS#12 in base64, a JSON-escaped PEM). Keys are RSA 2048; forge delegates generation to Node's
 * native crypto, so each takes milliseconds.
 */

export interface Issued {
  certificatePem: string;
  /** Unencrypted PKCS#8 PEM. */
  privateKeyPem: string;
  /** Unencrypted PKCS#1 PEM ("BEGIN RSA PRIVATE KEY") of the same key. */
  privateKeyPkcs1Pem: string;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  cert: forge.pki.Certificate;
  keys: forge.pki.rsa.KeyPair;
}

export interface Authority extends Issued {
  /** The CA's own chain up to (not including) the root, leaf first: empty for a root. */
  chainPem: string[];
}

export interface Validity {
  notBefore?: Date;
  notAfter?: Date;
}

const DAY = 86_400_000;

export function createCa(options: Validity & { commonName?: string; parent?: Authority } = {}): Authority {
  const commonName = options.commonName ?? `connector-auth test CA ${randomLabel()}`;
  const issued = issue({
    commonName,
    issuer: options.parent,
    notBefore: options.notBefore,
    notAfter: options.notAfter ?? new Date(Date.now() + 3650 * DAY),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
  });
  const chainPem = options.parent ? [issued.certificatePem, ...options.parent.chainPem] : [];
  return { ...issued, chainPem };
}

export function issueServer(ca: Authority, options: Validity & { commonName?: string; hosts?: string[] } = {}): Issued {
  const hosts = options.hosts ?? ['127.0.0.1', 'localhost'];
  return issue({
    commonName: options.commonName ?? hosts[0]!,
    issuer: ca,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: hosts.map((h) => (/^[\d.]+$/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
      },
    ],
  });
}

export function issueClient(ca: Authority, options: Validity & { commonName?: string } = {}): Issued {
  return issue({
    commonName: options.commonName ?? 'connector-auth test client',
    issuer: ca,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
}

/** The key as an encrypted PKCS#8 PEM ("BEGIN ENCRYPTED PRIVATE KEY", AES-256). */
export function encryptedPkcs8(issued: Issued, passphrase: string): string {
  const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(issued.keys.privateKey));
  return forge.pki.encryptedPrivateKeyToPem(forge.pki.encryptPrivateKeyInfo(info, passphrase, { algorithm: 'aes256' }));
}

/** The key as a legacy OpenSSL-encrypted PKCS#1 PEM ("Proc-Type: 4,ENCRYPTED", DEK-Info). */
export function encryptedPkcs1(issued: Issued, passphrase: string): string {
  return forge.pki.encryptRsaPrivateKey(issued.keys.privateKey, passphrase, { legacy: true, algorithm: 'aes128' });
}

/** Base64 of a PKCS#12 bundle holding the key, the certificate and the given chain (leaf first). */
export function pkcs12Base64(
  issued: Issued,
  passphrase: string | null,
  chain: Issued[] = [],
  algorithm: '3des' | 'aes256' = '3des',
): string {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    issued.keys.privateKey,
    [issued.cert, ...chain.map((c) => c.cert)],
    passphrase,
    {
      algorithm,
      friendlyName: issued.commonName,
    },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary').toString('base64');
}

/** How a PEM looks pasted into configuration.json as one JSON string (newlines as "\n"). */
export function jsonEscaped(pem: string): string {
  return JSON.stringify(pem).slice(1, -1);
}

interface IssueOptions extends Validity {
  commonName: string;
  issuer: Authority | undefined;
  extensions: object[];
}

function issue(options: IssueOptions): Issued {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // Positive, 16 random bytes: OpenSSL refuses negative serials, and repeats confuse caches.
  cert.serialNumber = '01' + forge.util.bytesToHex(forge.random.getBytesSync(15));
  const notBefore = options.notBefore ?? new Date(Date.now() - DAY);
  const notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY);
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'connector-auth tests' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : subject);
  const extensions = [...options.extensions];
  if (options.issuer)
    extensions.push({
      name: 'authorityKeyIdentifier',
      keyIdentifier: options.issuer.cert.generateSubjectKeyIdentifier().getBytes(),
    });
  cert.setExtensions(extensions);
  cert.sign((options.issuer?.keys ?? keys).privateKey, forge.md.sha256.create());
  const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keys.privateKey));
  return {
    certificatePem: forge.pki.certificateToPem(cert),
    privateKeyPem: forge.pki.privateKeyInfoToPem(info),
    privateKeyPkcs1Pem: forge.pki.privateKeyToPem(keys.privateKey),
    commonName: options.commonName,
    notBefore,
    notAfter,
    cert,
    keys,
  };
}

function randomLabel(): string {
  return forge.util.bytesToHex(forge.random.getBytesSync(3));
}

export const days = (n: number) => new Date(Date.now() + n * DAY);
