import type { Credential } from './auth-method.js';

/**
 * AWS credentials as the sources that sign with them see them (s3 signs each request; postgres signs
 * an IAM database login token): a long-term access key, or the temporary credentials of a role
 * assumed through STS (aws-role-session.ts). The key is handed over as an identity provider for an
 * AWS SDK client, so it cannot end up in a message by accident.
 */

/** What an AWS SDK client takes as `credentials`, or gets from a provider. */
export interface AwsCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When temporary credentials stop working: an SDK client asks its provider again before then. */
  readonly expiration?: Date;
}

export const AWS_METHODS = ['aws_access_key', 'aws_web_identity'] as const;

export interface AwsCredential extends Credential {
  readonly method: (typeof AWS_METHODS)[number];
  /** Who signs, for messages: "access key AKIA…" or "role arn:…:role/x"; never a secret. */
  readonly signer: string;
  /** The role whose temporary credentials sign, when one is assumed; undefined for an access key used itself. */
  readonly roleArn: string | undefined;
  /** The region in `aws_region`, when given: a default for sources with no region of their own. */
  readonly region: string | undefined;
  /**
   * The credentials to sign with, as an SDK identity provider: the same object until a role's
   * credentials near their expiry, then fresh ones (one STS request per lifetime, whatever the concurrency).
   */
  identity(): Promise<AwsCredentialIdentity>;
}

export function isAwsCredential(credential: Credential): credential is AwsCredential {
  return (AWS_METHODS as readonly string[]).includes(credential.method) && typeof (credential as Partial<AwsCredential>).identity === 'function';
}
