import { z } from 'zod';
import type { SecretRegistry } from '../../secrets/index.js';
import type { AwsCredentialIdentity } from '../capabilities.js';
import type { IssuedToken } from '../tokens/index.js';

/**
 * The JSON document AWS's local credential endpoints serve: EC2's instance metadata service (with
 * `Code: "Success"`) and the container endpoint of ECS tasks and EKS Pod Identity (without `Code`).
 * `{AccessKeyId, SecretAccessKey, Token, Expiration}`, the expiry as an ISO 8601 time.
 */
const credentialsDocument = z.looseObject({
  Code: z.string().optional(),
  Message: z.string().optional(),
  AccessKeyId: z.string().optional(),
  SecretAccessKey: z.string().optional(),
  Token: z.string().optional(),
  Expiration: z.string().optional(),
});

export type CredentialsDocument = z.infer<typeof credentialsDocument>;

/** The document in `text`, or undefined when it is not one (not JSON, or another shape). */
export function parseCredentialsDocument(text: string): CredentialsDocument | undefined {
  try {
    const parsed = credentialsDocument.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The credentials of a complete document, registered as secrets the moment they are read, with their
 * lifetime counted from `requestedAt`; undefined when a part is missing or the expiry is not a time.
 */
export function credentialsOf(
  document: CredentialsDocument,
  requestedAt: number,
  secrets: Pick<SecretRegistry, 'register'>,
): IssuedToken<AwsCredentialIdentity> | undefined {
  const { AccessKeyId, SecretAccessKey, Token, Expiration } = document;
  if (!AccessKeyId || !SecretAccessKey || !Token) return undefined;
  secrets.register('aws_session_secret_access_key', SecretAccessKey);
  secrets.register('aws_session_token', Token);
  const expiration = new Date(Expiration ?? NaN);
  if (Number.isNaN(expiration.getTime())) return undefined;
  return {
    value: { accessKeyId: AccessKeyId, secretAccessKey: SecretAccessKey, sessionToken: Token, expiration },
    lifetimeMs: expiration.getTime() - requestedAt,
  };
}
