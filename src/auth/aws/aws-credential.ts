import type { AuthContext, CredentialWith } from '../auth-method.js';
import type { AwsCredentialIdentity, AwsKeysCapability } from '../capabilities.js';
import { TokenCache, type IssuedToken } from '../tokens/index.js';

/**
 * AWS credentials as the sources that sign with them see them (s3 signs each request; postgres signs
 * an IAM database login token): a long-term access key, or a session, the temporary credentials of
 * a role (assumed through STS: aws-role-session.ts; the EC2 instance's own: instance-metadata-session.ts;
 * the ECS task's or EKS pod's: container-credentials-session.ts).
 * They are handed over as an identity provider for an AWS SDK client, so they cannot end up in a
 * message by accident.
 */

/** A credential that signs with AWS keys: what an AWS method's `create` returns. */
export type AwsCredential = CredentialWith<'awsKeys'>;

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
  o: Pick<AwsCredential, 'method' | 'description'> &
    Pick<AwsKeysCapability, 'signer' | 'region'> & { sessionKey: string },
): AwsCredential {
  return {
    method: o.method,
    description: o.description,
    // The role's own permissions decide what a source allows.
    rejectedKey: o.sessionKey,
    // The session token travels in a header of every request.
    sendsSecret: true,
    awsKeys: { signer: o.signer, sessionKey: o.sessionKey, region: o.region, identity: () => session.identity() },
    prepare: async () => void (await session.identity()),
    invalidate: () => session.invalidate(),
    close: () => session.close(),
  };
}
