import type { AuthContext, Credential } from '../auth-method.js';
import { notForHttp } from '../static/index.js';
import { TokenCache, type IssuedToken } from '../tokens/index.js';

/**
 * AWS credentials as the sources that sign with them see them (s3 signs each request; postgres signs
 * an IAM database login token): a long-term access key, or a session, the temporary credentials of
 * a role (assumed through STS: aws-role-session.ts; the EC2 instance's own: instance-metadata-session.ts;
 * the ECS task's or EKS pod's: container-credentials-session.ts).
 * They are handed over as an identity provider for an AWS SDK client, so they cannot end up in a
 * message by accident.
 */

/** What an AWS SDK client takes as `credentials`, or gets from a provider. */
export interface AwsCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When temporary credentials stop working: an SDK client asks its provider again before then. */
  readonly expiration?: Date;
}

export const AWS_METHODS = [
  'aws_access_key',
  'aws_web_identity',
  'aws_instance_profile',
  'aws_container_credentials',
] as const;

export interface AwsCredential extends Credential {
  readonly method: (typeof AWS_METHODS)[number];
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

export function isAwsCredential(credential: Credential): credential is AwsCredential {
  return (
    (AWS_METHODS as readonly string[]).includes(credential.method) &&
    typeof (credential as Partial<AwsCredential>).identity === 'function'
  );
}

/** Temporary credentials kept and renewed before they expire (a role's STS session, the instance's own). */
export interface AwsSession {
  identity(): Promise<AwsCredentialIdentity>;
  /** A source refused the credentials: drop them unless just issued (TokenCache.invalidate). */
  invalidate(): boolean;
  close(): Promise<void>;
}

/**
 * A session whose credentials `fetch` gets, kept in a TokenCache: one fetch per lifetime whatever the
 * concurrency, renewed in the background before the end. `release` frees what fetching used (its HTTP client).
 */
export function cachedAwsSession(o: {
  description: string;
  /** What the credentials are called in log lines, e.g. 'role credentials'. */
  noun: string;
  context: Pick<AuthContext, 'log' | 'now'>;
  fetch: () => Promise<IssuedToken<AwsCredentialIdentity>>;
  release: () => Promise<void>;
}): AwsSession {
  const cache = new TokenCache<AwsCredentialIdentity>({
    description: o.description,
    noun: o.noun,
    log: o.context.log,
    now: o.context.now,
    fetch: o.fetch,
  });
  return {
    identity: () => cache.token(),
    invalidate: () => cache.invalidate(),
    async close() {
      // A fetch in flight finishes first: what it registers and logs happens before the release.
      await cache.close();
      await o.release();
    },
  };
}

/**
 * The credential of a method that signs with a session. Fetching the session is the probe's first
 * step (`prepare`): a refused key, role or token fails there, before the source is asked anything.
 */
export function awsSessionCredential(
  session: AwsSession,
  o: Pick<AwsCredential, 'method' | 'description' | 'signer' | 'region'> & { sessionKey: string },
): AwsCredential {
  return {
    ...o,
    authorize: awsNotForHttp(o.method),
    // The role's own permissions decide what a source allows.
    rejectedKey: o.sessionKey,
    // The session token travels in a header of every request.
    sendsSecret: true,
    identity: () => session.identity(),
    prepare: async () => void (await session.identity()),
    invalidate: () => session.invalidate(),
    close: () => session.close(),
  };
}

/** authorize() of every AWS method: the source's AWS SDK signs with identity(); HTTP sources do not take these. */
export function awsNotForHttp(method: string): () => Promise<never> {
  return notForHttp(
    method,
    'AWS sources such as s3',
    "for an HTTP API, choose a method such as bearer, basic or oauth2_client_credentials in 'auth_method'",
  );
}
