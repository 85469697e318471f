import type { Credential } from './auth-method.js';

/**
 * An AWS access key as the sources that sign with it see it (s3 signs each request; postgres signs
 * an IAM database login token). The key is handed over as an object for an AWS SDK client, so it
 * cannot end up in a message by accident.
 */

/** What an AWS SDK client takes as `credentials`. */
export interface AwsCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface AwsCredential extends Credential {
  readonly method: 'aws_access_key';
  /** The access key id: public (it is sent with every request), safe to show. */
  readonly accessKeyId: string;
  /** The region in `aws_region`, when given: a default for sources with no region of their own. */
  readonly region: string | undefined;
  /** The key for an AWS SDK client. */
  identity(): AwsCredentialIdentity;
}

export function isAwsCredential(credential: Credential): credential is AwsCredential {
  return credential.method === 'aws_access_key' && typeof (credential as Partial<AwsCredential>).identity === 'function';
}
