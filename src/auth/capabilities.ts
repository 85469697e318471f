import type { HeaderReader, SshPrivateKey } from '../network/index.js';

/**
 * What a credential can do for a source, one member each. A method's line in built-in-methods.ts says which it
 * provides (statically, without loading the method), a source says which it needs, and the connector
 * matches the two once (connector/match-capability.ts). A source then uses the member, never the
 * method's name: a new method that provides `httpRequest` works with every source that needs it.
 *
 * Secrets are read through functions, so that no property that `inspect` or `JSON.stringify` could
 * show ever holds one.
 */
export interface Capabilities {
  /** Adds itself to an HTTP request (a header, a query parameter, a DPoP proof): REST APIs. */
  readonly httpRequest: HttpRequestCapability;
  /** An access token string, for a database or an SDK that takes one (Cloud SQL, Entra ID logins). */
  readonly bearerToken: BearerTokenCapability;
  /** A user's password, which the source checks inside its own protocol (SCRAM, SSH). */
  readonly password: PasswordCapability;
  /** AWS keys for SDK clients, SigV4 and RDS IAM database tokens. */
  readonly awsKeys: AwsKeysCapability;
  /** A client certificate presented in the TLS handshake. */
  readonly clientCertificate: ClientCertificateCapability;
  /** An SSH private key that signs the login. */
  readonly sshKey: SshKeyCapability;
  /** A presigned URL, whose query string is the credential. */
  readonly signedUrl: SignedUrlCapability;
  /** A GSS-API initiator under a Kerberos ticket: the tokens of PostgreSQL's GSSAPI login, of SPNEGO. */
  readonly kerberos: KerberosCapability;
}

export type CapabilityName = keyof Capabilities;

/** What a request looks like to a credential: it may add headers or a query parameter. */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /** The body, for a signature that covers it (OAuth 1.0a signs the parameters of a form body); never changed. */
  readonly body?: string | Uint8Array | URLSearchParams | null | undefined;
}

/** What a credential sees of an answer to a request it authorized: its status and headers, not its body. */
export interface AnswerHead {
  readonly status: number;
  readonly headers: HeaderReader;
}

export interface HttpRequestCapability {
  /** Adds the credential to a request. May fetch or refresh a token first. */
  authorize(request: OutgoingRequest): Promise<void>;
  /** Sees the headers of every answer to a request it authorized: a new DPoP nonce may come with any (RFC 9449 §9). */
  observeAnswer?(url: URL, headers: HeaderReader): void;
  /**
   * After a 401 from the source (and observeAnswer of it), first: does the answer ask for something
   * the credential now holds, with the same token (a DPoP nonce)? True when one retry, as it is, may succeed.
   */
  answersChallenge?(url: URL, headers: HeaderReader): boolean;
  /**
   * Checks the answer to a request it authorized before anything reads it, and throws when the
   * server did not prove what it must: SPNEGO's mutual authentication (RFC 4559 §5).
   */
  confirmAnswer?(request: OutgoingRequest, answer: AnswerHead): Promise<void>;
}

export interface BearerTokenCapability {
  /** The current access token, from the method's token cache (one token per lifetime, whoever asks). */
  read(): Promise<string>;
}

export interface PasswordCapability {
  read(): string;
}

/** What an AWS SDK client takes as `credentials`, or gets from a provider. */
export interface AwsCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When temporary credentials stop working: an SDK client asks its provider again before then. */
  readonly expiration?: Date;
}

export interface AwsKeysCapability {
  /** Who signs, for messages: "access key AKIA…", "role arn:…:role/x", "the instance profile role"; never a secret. */
  readonly signer: string;
  /**
   * For the temporary credentials of a role: the key that chose the role, to name when AWS refuses
   * them or denies access (`aws_role_arn`; `auth_method` for the instance's own role). Undefined for
   * an access key used itself, whose own keys are named instead.
   */
  readonly sessionKey: string | undefined;
  /** The region in `aws_region`, when given: a default for sources with no region of their own. */
  readonly region: string | undefined;
  /**
   * The credentials to sign with, as an SDK identity provider: the same object until a session nears
   * its expiry, then a fresh one (one request for it per lifetime, whatever the concurrency).
   */
  identity(): Promise<AwsCredentialIdentity>;
}

export interface ClientCertificateCapability {
  /** The certificate's subject, public: for messages. */
  readonly subject: string;
  /** PEM chain (leaf first) and unencrypted private key, as a TLS handshake takes them. */
  read(): { cert: string; key: string };
}

export interface SshKeyCapability {
  /** "ssh-ed25519" */
  readonly keyType: string;
  /** SHA256 fingerprint of the public half, as `ssh-keygen -l` prints it: public, safe to show. */
  readonly publicKeyFingerprint: string;
  /** The parsed, decrypted key for ssh2; an object, so it cannot end up in a message by accident. */
  read(): SshPrivateKey;
}

export interface SignedUrlCapability {
  read(): URL;
}

/** The service a GSS-API exchange is with: its principal is `<service>/<host>@REALM`. */
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
   * send (base64; '' when there is none) out. Failures arrive classified, naming the key to fix.
   */
  step(challenge: string): Promise<string>;
  /** True once the context is established (after the acceptor's answer, with mutual authentication). */
  readonly complete: boolean;
}

export interface KerberosCapability {
  /** A new security context with the service; the ticket behind it never leaves the Kerberos library. */
  gssInitiator(target: GssTarget): Promise<GssInitiator>;
}
